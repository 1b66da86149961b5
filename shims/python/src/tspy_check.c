/*
 * tspy_check — the module's one call of the client library's check API
 * (tspy.h, tspy_check_call). Every check the Python package makes goes
 * through here, so a change of the library's check arguments is a change
 * of this file alone.
 */
#include "tspy.h"

int tspy_check_call(ts_client *c, const tspy_check_params *p, struct json_object **result,
                    ts_error *err)
{
    ts_check_args *a = ts_check_args_new();
    int rc;

    if (a == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    /* a setter's failure (out of memory) is kept and returned by the check */
    ts_check_args_set_store(a, p->store);
    ts_check_args_set_name(a, p->name);
    ts_check_args_set_actual(a, p->actual);
    ts_check_args_set_format(a, p->format);
    ts_check_args_set_min_score(a, p->min_score);
    ts_check_args_set_weights(a, p->weights);
    ts_check_args_set_strict(a, p->strict);
    ts_check_args_set_ci(a, p->ci);
    ts_check_args_set_update(a, p->update);
    ts_check_args_set_allow_pending(a, p->allow_pending);
    ts_check_args_set_run(a, p->run);
    ts_check_args_set_test(a, p->test);
    ts_check_args_set_color(a, p->color);
    ts_check_args_set_rules(a, p->rules);
    ts_check_args_set_width(a, p->width);
    ts_check_args_set_json_diff(a, p->json_diff);
    ts_check_args_set_tsctl(a, p->tsctl);
    rc = ts_client_check(c, a, result, err);
    ts_check_args_free(a);
    return rc;
}

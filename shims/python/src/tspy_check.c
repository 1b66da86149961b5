/*
 * tspy_check — the module's one call of the client library's check API
 * (tspy.h, tspy_check_call). Every check the Python package makes goes
 * through here, so a change of the library's check arguments is a change
 * of this file alone.
 */
#include "tspy.h"

/* The result's bytes, copied: they are read into Python values once the
 * GIL is held again. */
static int keep_bytes(const unsigned char *data, size_t len, void *arg, ts_error *err)
{
    ts_buf *out = arg;

    ts_buf_reset(out);
    if (ts_buf_append(out, data, len) < 0)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

int tspy_check_call(ts_client *c, ts_check_args *a, const tspy_check_params *p, ts_buf *result,
                    ts_error *err)
{
    /* a setter's failure (out of memory) is kept and returned by the check */
    ts_check_args_set_store(a, p->store);
    ts_check_args_set_name(a, p->name);
    ts_check_args_set_actual_packed(a, p->actual, p->actual_len);
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
    return ts_client_check_bytes(c, a, keep_bytes, result, err);
}

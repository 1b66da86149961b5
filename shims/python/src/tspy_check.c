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
    ts_check_args a;

    ts_check_args_init(&a);
    a.store = p->store;
    a.name = p->name;
    a.actual = p->actual;
    a.format = p->format;
    a.min_score = p->min_score;
    a.weights = p->weights;
    a.strict = p->strict;
    a.ci = p->ci;
    a.update = p->update;
    a.allow_pending = p->allow_pending;
    a.run = p->run;
    a.test = p->test;
    a.color = p->color;
    return ts_client_check(c, &a, result, err);
}

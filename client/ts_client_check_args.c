/*
 * ts_client_check_args — the arguments of a check, built with setters (see
 * toolscore_client.h): an object the library owns, so options are added
 * without changing the ABI. Strings are copied, JSON values borrowed; a
 * setter's failure is kept for the check that uses the arguments.
 */
#include "ts_client_internal.h"

#include <stdlib.h>
#include <string.h>

ts_check_args *ts_check_args_new(void)
{
    ts_check_args *a = calloc(1, sizeof(*a));

    if (a != NULL)
        a->min_score = 1.0;
    return a;
}

void ts_check_args_free(ts_check_args *a)
{
    if (a == NULL)
        return;
    free(a->store);
    free(a->name);
    free(a->format);
    free(a->run);
    free(a->test);
    free(a->source);
    free(a->tsctl);
    free(a);
}

/* Replace *slot with a copy of s (NULL clears it). */
static int set_string(ts_check_args *a, char **slot, const char *s)
{
    char *copy = NULL;

    if (s != NULL && *slot != NULL && strcmp(*slot, s) == 0)
        return 0; /* the usual reuse: the same store again */
    if (s != NULL) {
        copy = strdup(s);
        if (copy == NULL) {
            if (a->error == 0)
                a->error = -ENOMEM;
            return -ENOMEM;
        }
    }
    free(*slot);
    *slot = copy;
    return 0;
}

/* Borrow v (NULL clears it): not even its reference count is touched, as
 * json-c does not count atomically and callers may share a value between
 * threads. */
static int set_value(const struct json_object **slot, const struct json_object *v)
{
    *slot = v;
    return 0;
}

int ts_check_args_set_store(ts_check_args *a, const char *store)
{
    return set_string(a, &a->store, store);
}

int ts_check_args_set_name(ts_check_args *a, const char *name)
{
    return set_string(a, &a->name, name);
}

int ts_check_args_set_actual(ts_check_args *a, const struct json_object *actual)
{
    a->actual_packed = NULL;
    a->actual_packed_len = 0;
    return set_value(&a->actual, actual);
}

int ts_check_args_set_actual_packed(ts_check_args *a, const void *data, size_t len)
{
    a->actual = NULL;
    a->actual_packed = data;
    a->actual_packed_len = data != NULL ? len : 0;
    return 0;
}

int ts_check_args_set_format(ts_check_args *a, const char *format)
{
    return set_string(a, &a->format, format);
}

int ts_check_args_set_min_score(ts_check_args *a, double min_score)
{
    a->min_score = min_score;
    return 0;
}

int ts_check_args_set_weights(ts_check_args *a, const struct json_object *weights)
{
    return set_value(&a->weights, weights);
}

int ts_check_args_set_rules(ts_check_args *a, const struct json_object *rules)
{
    return set_value(&a->rules, rules);
}

int ts_check_args_set_strict(ts_check_args *a, bool strict)
{
    a->strict = strict;
    return 0;
}

int ts_check_args_set_ci(ts_check_args *a, bool ci)
{
    a->ci = ci;
    return 0;
}

int ts_check_args_set_update(ts_check_args *a, bool update)
{
    a->update = update;
    return 0;
}

int ts_check_args_set_allow_pending(ts_check_args *a, bool allow_pending)
{
    a->allow_pending = allow_pending;
    return 0;
}

int ts_check_args_set_run(ts_check_args *a, const char *run)
{
    return set_string(a, &a->run, run);
}

int ts_check_args_set_test(ts_check_args *a, const char *test)
{
    return set_string(a, &a->test, test);
}

int ts_check_args_set_source(ts_check_args *a, const char *source)
{
    return set_string(a, &a->source, source);
}

int ts_check_args_set_tsctl(ts_check_args *a, const char *tsctl)
{
    return set_string(a, &a->tsctl, tsctl);
}

int ts_check_args_set_color(ts_check_args *a, bool color)
{
    a->color = color;
    return 0;
}

int ts_check_args_set_width(ts_check_args *a, unsigned width)
{
    a->width = width > TS_CHECK_WIDTH_MAX ? TS_CHECK_WIDTH_MAX : width;
    return 0;
}

int ts_check_args_set_json_diff(ts_check_args *a, bool json_diff)
{
    a->no_json_diff = !json_diff;
    return 0;
}

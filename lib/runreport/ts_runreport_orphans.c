/*
 * ts_runreport_orphans — the snapshots of a store that no check of a
 * report referenced (see ts_runreport.h), for the reports that show them
 * (the HTML report) without a daemon's run.
 */
#include "lib/runreport/ts_runreport.h"

#include <errno.h>

#include "lib/store/ts_store.h"

int ts_runreport_orphans(const ts_runreport *r, const char *root, struct json_object **out,
                         ts_error *err)
{
    ts_store_summaries list;
    ts_store *store = NULL;
    int rc = ts_store_open(root, &store, err);

    *out = NULL;
    if (rc == 0)
        rc = ts_store_list_summaries(store, &list, err);
    ts_store_close(store);
    if (rc < 0)
        return rc;
    *out = json_object_new_array();
    for (size_t i = 0; *out != NULL && i < list.count; i++) {
        if (!ts_runreport_references(r, list.items[i].name))
            json_object_array_add(*out, json_object_new_string(list.items[i].name));
    }
    ts_store_summaries_free(&list);
    if (*out == NULL)
        return ts_error_set(err, -ENOMEM, TS_ERR_NO_MEMORY, "out of memory");
    return 0;
}

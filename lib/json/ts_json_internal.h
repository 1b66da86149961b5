/*
 * ts_json_internal — what ts_json.c shares with ts_json_write.c. Not a
 * contract for other modules: use ts_json.h.
 */
#ifndef TS_JSON_INTERNAL_H
#define TS_JSON_INTERNAL_H

#include <locale.h>

/*
 * Switch this thread to the "C" locale for number conversions (strtod,
 * snprintf); returns what ts_json__c_locale_leave restores. Thread-safe.
 */
locale_t ts_json__c_locale_enter(void);
void ts_json__c_locale_leave(locale_t previous);

#endif

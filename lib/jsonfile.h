/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonfile.h: what the JSON files of topomap (netmaps, profiles) share:
 * strict parsing with line numbers, checked access to keys, numbers that
 * read back exactly, one-line arrays in pretty files, UTC timestamps.
 */
#ifndef TOPOMAP_JSONFILE_H
#define TOPOMAP_JSONFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <json.h>

#include "lib/error.h"

/* Whether s[0..len) holds a control character. */
bool jsonfile_has_control (const char *s, size_t len);

/* s itself when it is safe to quote in a one-line message. */
const char *jsonfile_quote (const char *s);

/* A json-c serializer (json_object_set_serializer) that writes an array
 * on one line, "[0, 1, 5, 2048]", inside a pretty file.
 */
int jsonfile_inline (json_object *jso, struct printbuf *pb, int level, int flags);

/* A double written in the fewest digits that read back exactly. */
json_object *jsonfile_double (double d);

/* An array of the n ints v[] on one line (jsonfile_inline); NULL on
 * ENOMEM. */
json_object *jsonfile_ints (const int *v, size_t n);

/* Add val to an array or, with key, an object.  Takes val even on
 * failure; a NULL val is a failure (out of memory) unless null_ok, when it
 * stands for JSON null.
 */
int jsonfile_add (json_object *to, const char *key, json_object *val, bool null_ok);

/* Parse buf as one JSON object: strict, UTF-8, nothing but white space
 * after it; a UTF-8 byte order mark before it is skipped, as every reader
 * of topomap skips one.  Messages give the line, not the file.  NULL with
 * EINVAL.
 */
json_object *jsonfile_parse (const char *buf, size_t len, tm_error_t *errp);

/* The JSON object in the file path (at most max bytes); messages name it. */
json_object *jsonfile_read (const char *path, size_t max, tm_error_t *errp);

/* The same from the open descriptor fd, named what in messages. */
json_object *jsonfile_read_fd (int fd, const char *what, size_t max, tm_error_t *errp);

/* Refuse a key of o not in keys (NULL-terminated); prefix names o. */
int jsonfile_keys (json_object *o, const char *prefix, const char *const *keys, tm_error_t *errp);

/* The integer v in lo..hi into *xp; what names it in messages ("negative"
 * when lo is 0, the value and "too small" or "too large" else; json-c
 * reads any integer beyond int64 as INT64_MAX, which is refused as above
 * 2^63-1).
 */
int jsonfile_int (json_object *v, const char *what, int64_t lo, int64_t hi, int64_t *xp,
                  tm_error_t *errp);

/* The value of key in o, which must be of type (an integer will do for a
 * number); prefix names o in messages.
 */
int jsonfile_get (json_object *o, const char *prefix, const char *key, json_type type,
                  json_object **vp, tm_error_t *errp);

/* Timestamps: strictly "YYYY-MM-DDTHH:MM:SSZ", a real UTC time.  format
 * needs len >= 21 and fails outside years 0..9999.
 */
int jsonfile_parse_time (const char *s, time_t *tp);
int jsonfile_format_time (time_t t, char *buf, size_t len);

#endif

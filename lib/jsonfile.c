/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonfile.c: what the JSON files of topomap share.  See jsonfile.h. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json.h>

#include "lib/file.h"
#include "lib/jsonfile.h"

bool jsonfile_has_control (const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return true;
    return false;
}
/* s itself when it is safe to quote in a one-line message. */
const char *jsonfile_quote (const char *s)
{
    size_t len = strlen (s);

    if (len > 64 || jsonfile_has_control (s, len))
        return "(unprintable)";
    return s;
}
/* Serialize an array on one line, "[0, 1, 5, 2048]", inside a pretty file. */
int jsonfile_inline (json_object *jso, struct printbuf *pb, int level, int flags)
{
    size_t len = json_object_array_length (jso);

    (void)level;
    flags &= ~(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB | JSON_C_TO_STRING_SPACED);
    if (printbuf_strappend (pb, "[") < 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        json_object *e = json_object_array_get_idx (jso, i);
        const char *s = e ? json_object_to_json_string_ext (e, flags) : "null";

        if (!s)
            return -1;
        if (i > 0 && printbuf_strappend (pb, ", ") < 0)
            return -1;
        if (printbuf_memappend (pb, s, (int)strlen (s)) < 0)
            return -1;
    }
    if (printbuf_strappend (pb, "]") < 0)
        return -1;
    return 0;
}
json_object *jsonfile_ints (const int *v, size_t n)
{
    json_object *a = json_object_new_array ();

    if (!a)
        return NULL;
    json_object_set_serializer (a, jsonfile_inline, NULL, NULL);
    for (size_t k = 0; k < n; k++)
        if (jsonfile_add (a, NULL, json_object_new_int (v[k]), false) < 0) {
            json_object_put (a);
            return NULL;
        }
    return a;
}

/* A double written in the fewest digits that read back exactly. */
json_object *jsonfile_double (double d)
{
    char s[40];

    for (int prec = 15; prec <= 17; prec++) {
        snprintf (s, sizeof (s), "%.*g", prec, d);
        if (strtod (s, NULL) == d)
            break;
    }
    for (char *c = s; *c; c++)
        if (*c == ',') /* a locale's decimal comma */
            *c = '.';
    return json_object_new_double_s (d, s);
}
int jsonfile_add (json_object *to, const char *key, json_object *val, bool null_ok)
{
    int rc;

    if (!val && !null_ok)
        return -1;
    if (key)
        rc = json_object_object_add (to, key, val);
    else
        rc = json_object_array_add (to, val);
    if (rc < 0) {
        json_object_put (val);
        return -1;
    }
    return 0;
}
static int jsonfile_line_of (const char *buf, size_t off)
{
    int line = 1;

    for (size_t i = 0; i < off; i++)
        if (buf[i] == '\n')
            line++;
    return line;
}
/* Parse buf as one JSON document: strict, UTF-8, nothing but white space
 * after it, a byte order mark before it skipped.  Messages do not name
 * the file.
 */
json_object *jsonfile_parse (const char *buf, size_t len, tm_error_t *errp)
{
    struct json_tokener *tok = NULL;
    json_object *o = NULL;
    enum json_tokener_error err;
    size_t end, bom = file_bom (buf, len);

    buf += bom;
    len -= bom;
    if (len == 0) {
        errprintf (errp, "not valid JSON: empty file");
        goto error;
    }
    if (len > INT_MAX) {
        errprintf (errp, "not valid JSON: larger than %d bytes", INT_MAX);
        goto error;
    }
    if (!(tok = json_tokener_new ())) {
        errnomem (errp);
        goto error;
    }
    json_tokener_set_flags (tok, JSON_TOKENER_STRICT
#ifdef JSON_TOKENER_VALIDATE_UTF8
                                     | JSON_TOKENER_VALIDATE_UTF8
#endif
    );
    o = json_tokener_parse_ex (tok, buf, (int)len);
    err = json_tokener_get_error (tok);
#if JSON_C_VERSION_NUM >= ((0 << 16) | (15 << 8))
    end = json_tokener_get_parse_end (tok);
#else
    end = (size_t)tok->char_offset;
#endif
    if (err == json_tokener_continue) {
        errprintf (errp, "not valid JSON: truncated at line %d", jsonfile_line_of (buf, len));
        goto error;
    }
    if (err != json_tokener_success) {
        errprintf (errp, "not valid JSON: %s at line %d", json_tokener_error_desc (err),
                   jsonfile_line_of (buf, end));
        goto error;
    }
    for (size_t i = end; i < len; i++)
        if (!strchr (" \t\r\n", buf[i]) || buf[i] == '\0') {
            errprintf (errp, "not valid JSON: data after the end at line %d",
                       jsonfile_line_of (buf, i));
            goto error;
        }
    if (!json_object_is_type (o, json_type_object)) {
        errprintf (errp, "not a JSON object");
        goto error;
    }
    json_tokener_free (tok);
    return o;
error:
    json_object_put (o);
    if (tok)
        json_tokener_free (tok);
    errno = EINVAL;
    return NULL;
}
int jsonfile_keys (json_object *o, const char *prefix, const char *const *keys, tm_error_t *errp)
{
    json_object_object_foreach (o, key, val)
    {
        int k = 0;

        (void)val;
        while (keys[k] && strcmp (keys[k], key) != 0)
            k++;
        if (!keys[k])
            return errprintf (errp, "unknown key '%s%s'", prefix, jsonfile_quote (key));
    }
    return 0;
}
/* The value of key in o, which must be of type (an integer will do for a
 * number).
 */
int jsonfile_int (json_object *v, const char *what, int64_t lo, int64_t hi, int64_t *xp,
                  tm_error_t *errp)
{
    int64_t x;

    if (!json_object_is_type (v, json_type_int))
        return errprintf (errp, "%s: not an integer", what);
    x = json_object_get_int64 (v);
#if JSON_C_VERSION_NUM >= ((0 << 16) | (14 << 8))
    if (x == INT64_MAX && json_object_get_uint64 (v) > (uint64_t)INT64_MAX)
        return errprintf (errp, "%s: above 2^63-1, too large", what);
#else
    if (x == INT64_MAX)
        return errprintf (errp, "%s: 2^63-1 or more, too large", what);
#endif
    if (x < lo)
        return lo == 0 ? errprintf (errp, "%s: negative", what)
                       : errprintf (errp, "%s: %" PRId64 ", too small", what, x);
    if (x > hi)
        return errprintf (errp, "%s: %" PRId64 ", too large", what, x);
    *xp = x;
    return 0;
}

int jsonfile_get (json_object *o, const char *prefix, const char *key, json_type type,
                  json_object **vp, tm_error_t *errp)
{
    static const char *const names[] = {
        [json_type_null] = "null",        [json_type_boolean] = "a boolean",
        [json_type_double] = "a number",  [json_type_int] = "an integer",
        [json_type_object] = "an object", [json_type_array] = "an array",
        [json_type_string] = "a string",
    };
    json_object *v;

    if (!json_object_object_get_ex (o, key, &v))
        return errprintf (errp, "missing key '%s%s'", prefix, key);
    if (json_object_is_type (v, type) ||
        (type == json_type_double && json_object_is_type (v, json_type_int))) {
        *vp = v;
        return 0;
    }
    return errprintf (errp, "%s%s: not %s", prefix, key, names[type]);
}
/* Strictly "YYYY-MM-DDTHH:MM:SSZ", a real UTC time. */
int jsonfile_parse_time (const char *s, time_t *tp)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:ddZ";
    struct tm tm = {0}, back;
    time_t t;

    if (strlen (s) != sizeof (pattern) - 1)
        return -1;
    for (size_t i = 0; pattern[i]; i++)
        if (pattern[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != pattern[i])
            return -1;
    if (sscanf (s, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                &tm.tm_min, &tm.tm_sec) != 6)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    back = tm;
    t = timegm (&tm);
    /* timegm normalizes out-of-range fields: a real time comes back unchanged. */
    if (!gmtime_r (&t, &tm) || tm.tm_year != back.tm_year || tm.tm_mon != back.tm_mon ||
        tm.tm_mday != back.tm_mday || tm.tm_hour != back.tm_hour || tm.tm_min != back.tm_min ||
        tm.tm_sec != back.tm_sec)
        return -1;
    *tp = t;
    return 0;
}

int jsonfile_format_time (time_t t, char *buf, size_t len)
{
    struct tm tm;

    /* Not strftime: glibc's %Y does not zero-pad years before 1000. */
    if (!gmtime_r (&t, &tm) || tm.tm_year < -1900 || tm.tm_year > 9999 - 1900 ||
        snprintf (buf, len, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec) != 20)
        return -1;
    return 0;
}

/* The JSON object in buf (len bytes, from what), buf freed. */
static json_object *jsonfile_take (char *buf, size_t len, const char *what, tm_error_t *errp)
{
    json_object *o;
    tm_error_t e;
    int saved;

    if (!(o = jsonfile_parse (buf, len, &e)))
        errprintf (errp, "%s: %s", what, e.text);
    saved = errno;
    free (buf);
    errno = saved;
    return o;
}

json_object *jsonfile_read (const char *path, size_t max, tm_error_t *errp)
{
    char *buf = NULL;
    size_t len = 0;

    if (file_slurp (path, max, &buf, &len, errp) < 0)
        return NULL;
    return jsonfile_take (buf, len, path, errp);
}

json_object *jsonfile_read_fd (int fd, const char *what, size_t max, tm_error_t *errp)
{
    char *buf = NULL;
    size_t len = 0;

    if (file_slurp_fd (fd, what, max, &buf, &len, errp) < 0)
        return NULL;
    return jsonfile_take (buf, len, what, errp);
}

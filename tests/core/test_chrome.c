/*
 * test_chrome.c — the Chrome trace event writer (core/chrome.h): what it
 * writes parses as JSON (jansson), names come back as given (quotes,
 * backslashes, control characters, UTF-8) or with U+FFFD for bytes that
 * are not UTF-8, times are exact microseconds, and a failed write is -EIO.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/chrome.h"
#include "tests/tcheck.h"

static json_t *write_doc(const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct ts_chrome c;
	const struct ts_chrome_arg a[] = { { "offset", 4096 }, { "result", -5 } };

	ts_chrome_begin(&c, f);
	ts_chrome_meta_name(&c, "process_name", 1, 0, name);
	ts_chrome_meta_sort(&c, "thread_sort_index", 1, 7, 3);
	ts_chrome_slice(&c, name, "io", 1, 7, 1234567, 1001, a, 2);
	ts_chrome_slice(&c, "plain", NULL, 1, 7, 5, 0, NULL, 0);
	ts_chrome_instant(&c, "cap", 1, 0, 999);
	CHECK(ts_chrome_end(&c, "\"events\":%d", 4) == 0);
	CHECK_EQ_U64(c.events, 5);
	fclose(f);
	json_error_t e;
	json_t *doc = json_loadb(buf, len, 0, &e);
	if (!doc)
		fprintf(stderr, "not JSON (%s): %s\n", e.text, buf);
	free(buf);
	return doc;
}

static void names(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "read /a \"b\"\\c", "read /a \"b\"\\c" },
		{ "tab\there\nnl\x01", "tab\there\nnl\x01" },
		{ "ütf-8 ✓ \xf0\x9f\x98\x80", "ütf-8 ✓ \xf0\x9f\x98\x80" },
		{ "bad \xff\xfe end", "bad \xef\xbf\xbd\xef\xbf\xbd end" },	  /* not UTF-8 */
		{ "cut \xe2\x9c", "cut \xef\xbf\xbd\xef\xbf\xbd" },		  /* a sequence cut short */
		{ "over \xc0\xaf", "over \xef\xbf\xbd\xef\xbf\xbd" },	  /* overlong '/' */
		{ "surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *doc = write_doc(cases[i].in);
		CHECK(doc != NULL);
		if (!doc)
			continue;
		json_t *ev = json_object_get(doc, "traceEvents");
		const char *meta = json_string_value(
		    json_object_get(json_object_get(json_array_get(ev, 0), "args"), "name"));
		const char *slice = json_string_value(json_object_get(json_array_get(ev, 2), "name"));
		if (!meta || strcmp(meta, cases[i].out) || !slice || strcmp(slice, cases[i].out))
			fprintf(stderr, "name case %zu: got \"%s\"\n", i, meta ? meta : "(null)");
		CHECK(meta && !strcmp(meta, cases[i].out));
		CHECK(slice && !strcmp(slice, cases[i].out));
		json_decref(doc);
	}
}

static void fields(void)
{
	json_t *doc = write_doc("x");
	CHECK(doc != NULL);
	if (!doc)
		return;
	json_t *ev = json_object_get(doc, "traceEvents");
	CHECK(json_array_size(ev) == 5);
	CHECK(!strcmp(json_string_value(json_object_get(doc, "displayTimeUnit")), "ns"));
	json_t *s = json_array_get(ev, 2);
	CHECK(!strcmp(json_string_value(json_object_get(s, "ph")), "X"));
	CHECK(!strcmp(json_string_value(json_object_get(s, "cat")), "io"));
	CHECK(json_real_value(json_object_get(s, "ts")) == 1234.567); /* exact */
	CHECK(json_real_value(json_object_get(s, "dur")) == 1.001);
	CHECK(json_integer_value(json_object_get(json_object_get(s, "args"), "result")) == -5);
	CHECK(json_integer_value(json_object_get(s, "tid")) == 7);
	CHECK(json_object_get(json_array_get(ev, 3), "cat") == NULL);
	CHECK(json_integer_value(json_object_get(json_object_get(json_array_get(ev, 1), "args"),
						 "sort_index")) == 3);
	json_t *i = json_array_get(ev, 4);
	CHECK(!strcmp(json_string_value(json_object_get(i, "ph")), "i"));
	CHECK(!strcmp(json_string_value(json_object_get(i, "s")), "g"));
	CHECK(json_integer_value(json_object_get(json_object_get(doc, "otherData"), "events")) == 4);
	json_decref(doc);
}

/* A stream that cannot be written: the end says so. */
static void write_error(void)
{
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		return;
	setvbuf(f, NULL, _IONBF, 0);
	struct ts_chrome c;
	ts_chrome_begin(&c, f);
	ts_chrome_slice(&c, "x", NULL, 1, 1, 0, 1, NULL, 0);
	CHECK(ts_chrome_end(&c, NULL) == -EIO);
	fclose(f);
}

int main(void)
{
	names();
	fields();
	write_error();
	return tc_exit();
}

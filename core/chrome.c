/*
 * chrome.c — the Chrome trace event JSON writer (chrome.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>

#include "core/chrome.h"

/* The length of the UTF-8 sequence at @p (RFC 3629: no overlong forms, no
 * surrogates, nothing past U+10FFFF); 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned char c = p[0];
	size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	unsigned char lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned char hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;

	for (size_t i = 1; i < n; i++)
		if (p[i] < (i == 1 ? lo : 0x80) || p[i] > (i == 1 ? hi : 0xbf))
			return 0;
	return n;
}

void ts_json_put_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putc('"', f);
	while (*p) {
		const unsigned char *run = p;
		while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		fwrite(run, 1, (size_t)(p - run), f);
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			putc('\\', f);
			putc(*p++, f);
		} else if (*p < 0x20) {
			fprintf(f, "\\u%04x", *p++);
		} else {
			size_t n = utf8_len(p);
			if (n) {
				fwrite(p, 1, n, f);
				p += n;
			} else {
				fputs("\\ufffd", f);
				p++;
			}
		}
	}
	putc('"', f);
}

static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

/* Opens one event: the separator, then {"name":NAME,"ph":"PH". */
static void event(struct ts_chrome *c, const char *name, const char *ph)
{
	fputs(c->events++ ? ",\n{\"name\":" : "\n{\"name\":", c->f);
	ts_json_put_str(c->f, name);
	fprintf(c->f, ",\"ph\":\"%s\"", ph);
}

void ts_chrome_begin(struct ts_chrome *c, FILE *f)
{
	c->f = f;
	c->events = 0;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
}

void ts_chrome_meta_name(struct ts_chrome *c, const char *what, uint32_t pid, uint32_t tid,
			 const char *name)
{
	event(c, what, "M");
	fprintf(c->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"name\":", pid, tid);
	ts_json_put_str(c->f, name);
	fputs("}}", c->f);
}

void ts_chrome_meta_sort(struct ts_chrome *c, const char *what, uint32_t pid, uint32_t tid,
			 unsigned idx)
{
	event(c, what, "M");
	fprintf(c->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"sort_index\":%u}}",
		pid, tid, idx);
}

void ts_chrome_slice(struct ts_chrome *c, const char *name, const char *cat, uint32_t pid,
		     uint32_t tid, uint64_t ts_ns, uint64_t dur_ns, const struct ts_chrome_arg *a,
		     unsigned na)
{
	event(c, name, "X");
	if (cat) {
		fputs(",\"cat\":", c->f);
		ts_json_put_str(c->f, cat);
	}
	fprintf(c->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 ",\"ts\":", pid, tid);
	put_us(c->f, ts_ns);
	fputs(",\"dur\":", c->f);
	put_us(c->f, dur_ns);
	for (unsigned i = 0; i < na; i++)
		fprintf(c->f, "%s\"%s\":%" PRId64, i ? "," : ",\"args\":{", a[i].key, a[i].val);
	fputs(na ? "}}" : "}", c->f);
}

void ts_chrome_instant(struct ts_chrome *c, const char *name, uint32_t pid, uint32_t tid,
		       uint64_t ts_ns)
{
	event(c, name, "i");
	fputs(",\"s\":\"g\",\"ts\":", c->f);
	put_us(c->f, ts_ns);
	fprintf(c->f, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 "}", pid, tid);
}

int ts_chrome_end(struct ts_chrome *c, const char *other_fmt, ...)
{
	fputs("\n]", c->f);
	if (other_fmt) {
		va_list ap;
		va_start(ap, other_fmt);
		fputs(",\"otherData\":{", c->f);
		vfprintf(c->f, other_fmt, ap);
		fputc('}', c->f);
		va_end(ap);
	}
	fputs("}\n", c->f);
	return ferror(c->f) ? -EIO : 0;
}

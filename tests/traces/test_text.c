/*
 * test_text.c — binary → text → binary gives the same bytes, for a trace
 * recorded by the writer (many threads, paths with awkward characters,
 * drops) and for one cut short; malformed text names its line and field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <signal.h>
#include <glob.h>
#include <string.h>
#include <unistd.h>

#include "tests/tcheck.h"
#include "traces/text.h"
#include "traces/trace.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*len = (size_t)ftell(f);
	rewind(f);
	char *b = malloc(*len + 1);
	if (b && fread(b, 1, *len, f) != *len) {
		free(b);
		b = NULL;
	}
	fclose(f);
	return b;
}

/* binary file @a → text → binary file @b; returns 1 when identical */
static int round_trip(const char *a, const char *b)
{
	struct ts_trace t, u;
	char err[512];
	int same = 0;

	if (ts_trace_read(a, &t, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 0;
	}
	char *text = NULL;
	size_t tlen = 0;
	FILE *m = open_memstream(&text, &tlen);
	CHECK(ts_trace_dump(m, &t) == 0);
	fclose(m);
	m = fmemopen(text, tlen, "r");
	int ret = ts_trace_undump(m, "mem", &u, err, sizeof(err));
	fclose(m);
	CHECK(ret == 0);
	if (ret) {
		fprintf(stderr, "%s\n", err);
	} else {
		CHECK(ts_trace_write(&u, b) == 0);
		size_t la, lb;
		char *ba = slurp(a, &la), *bb = slurp(b, &lb);
		same = ba && bb && la - t.trailing_bytes == lb && !memcmp(ba, bb, lb);
		free(ba);
		free(bb);
		ts_trace_free(&u);
	}
	free(text);
	ts_trace_free(&t);
	return same;
}

static void write_sample(const char *path, unsigned n, const struct ts_trace_writer_cfg *cfg)
{
	/* model options: some set (one of them 0), the rest not */
	struct ts_trace_hdr h = {.capacity = 123456789,
				 .mem = 42,
				 .model = TS_TRACE_MODEL_SEED | TS_TRACE_MODEL_FLOOR |
					  TS_TRACE_MODEL_RA_MAX,
				 .seed = 3,
				 .floor_ns = 40000};
	struct ts_trace_writer *w;

	strcpy(h.tier, "essd-pl1");
	strcpy(h.profile, "tier/tiers.lua");
	strcpy(h.mount_opts, "tier=essd-pl1,trace=\"q\"\\x");
	CHECK(ts_trace_writer_open_cfg(path, &h, cfg, &w) == 0);
	static const char *const names[] = {"/plain", "/with space", "/quote\"and\\back",
					    "/new\nline\ttab\x01", "/ütf-8 ✓"};
	for (unsigned i = 0; i < n; i++) {
		struct ts_trace_rec r = {
		    .submit_ns = 1000 + i,
		    .complete_ns = 5000 + 2 * i,
		    .offset = (uint64_t)i << 20,
		    .length = 1 << 20,
		    .result = i % 7 ? (int64_t)1 << 20 : -5,
		    .file_id = ts_trace_writer_file_id(w, names[i % 5]),
		    .aux = i % 11,
		    .tid = 7 + i % 3,
		    .size = 1ULL << 40,
		    .op = (uint16_t)(1 + i % (TS_OP_IO_LAST - 1)),
		    .flags = (uint16_t)(i & 3),
		};
		/* every third one with its thread's CPU sample (version 2) */
		struct ts_trace_cpu c = {
		    .on_ns = 10 * (uint64_t)i, .runq_ns = i, .sys_ns = 3 * (uint64_t)i, .pid = 7, .ppid = 1};
		if (i % 3)
			ts_trace_writer_put(w, &r);
		else
			ts_trace_writer_put_cpu(w, &r, &c);
	}
	CHECK(ts_trace_writer_close(w, NULL) == 0);
}

/* @text undumped as "in.txt" into @t. */
static int undump_text(const char *text, struct ts_trace *t, char *err, size_t n)
{
	FILE *m = fmemopen((void *)text, strlen(text), "r");
	int ret = ts_trace_undump(m, "in.txt", t, err, n);
	fclose(m);
	return ret;
}

static void check_bad(const char *text, int code, const char *needle)
{
	struct ts_trace t;
	char err[512] = "";
	int ret = undump_text(text, &t, err, sizeof(err));
	CHECK(ret == code);
	if (!strstr(err, needle)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err, needle);
		CHECK(0);
	}
	if (!ret)
		ts_trace_free(&t);
}

/* @text reads with header model bits @model and dumps with @needle. */
static void check_dump(const char *text, uint32_t model, const char *needle)
{
	struct ts_trace t;
	char err[512] = "";
	int ret = undump_text(text, &t, err, sizeof(err));
	CHECK(ret == 0);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK(t.hdr.model == model);
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	CHECK(ts_trace_dump(m, &t) == 0);
	fclose(m);
	if (!strstr(out, needle)) {
		fprintf(stderr, "dump \"%s\" lacks \"%s\"\n", out, needle);
		CHECK(0);
	}
	free(out);
	ts_trace_free(&t);
}

int main(void)
{
	char a[] = "/tmp/ts_text_a_XXXXXX", b[] = "/tmp/ts_text_b_XXXXXX";
	close(mkstemp(a));
	close(mkstemp(b));

	write_sample(a, 2000, NULL);
	CHECK(round_trip(a, b));

	/* with drops: a tiny ring, no spill */
	struct ts_trace_writer_cfg cfg = {.ring_records = 2, .spill_bytes = TS_TRACE_SPILL_NONE};
	write_sample(a, 20000, &cfg);
	CHECK(round_trip(a, b));

	/* cut short: drop the trailer and half an item */
	write_sample(a, 100, NULL);
	size_t len;
	char *buf = slurp(a, &len);
	FILE *f = fopen(a, "wb");
	fwrite(buf, 1, len - 64 - 30, f);
	fclose(f);
	free(buf);
	CHECK(round_trip(a, b));

	const char *hdr = "header version=1 start_wall_ns=0 start_mono_ns=0 capacity=0 mem=0 "
			  "tier=\"\" profile=\"\" mount_opts=\"\" host=\"\"\n";
	char text[1024];
	check_bad("header version=13\n", TS_E_VERSION, "in.txt:1: trace version 13");
	/* the model options: version 3's fields, each with its bit; a
	 * version 2 header has them in mount_opts, and a bad value there is
	 * refused */
	check_bad("header version=3 seed=5\n", TS_E_PARSE,
		  "in.txt:1: header field seed without its bit in model=");
	check_bad("header version=3 model=8192\n", TS_E_PARSE,
		  "in.txt:1: header field model: bad value \"8192\"");
	check_bad("header version=9 model=2048\n", TS_E_PARSE, "0x800, carry, version 10's;");
	/* version 12: the disk image's geometry (0x1000), all its keys */
	check_bad("header version=11 model=4096\n", TS_E_PARSE, "0x1000, the image's geometry, version 12's)");
	check_bad("header version=12 fs_blocks=5\n", TS_E_PARSE,
		  "in.txt:1: header: a geometry field (fs_*) without its bit (0x1000)");
	check_bad("header version=12 model=4096 fs_blocks=5\n", TS_E_PARSE,
		  "in.txt:1: header: geometry field fs_block (1-64 KiB) out of range");
	check_bad("header version=12 model=4096 fs_block=3000\n", TS_E_PARSE,
		  "in.txt:1: header field fs_block: bad value \"3000\"");
	/* the disk image's bit (0x400, no field) is version 8's; before it
	 * the hop's bit (0x100) stands for it, and the dump leaves it out */
	check_bad("header version=7 model=1024\n", TS_E_PARSE,
		  "in.txt:1: header: model=1024 sets bits a version 7 header does not have");
	check_bad("header version=7 model=1280 loop_hop_ns=5\n", TS_E_PARSE,
		  "0x400, the disk image, version 8's;");
	check_dump("header version=8 model=1024\nend drops=0 records=0 t=0\n",
		   TS_TRACE_MODEL_IMAGE, " host=\"\" model=1024\n");
	check_dump("header version=8 model=256 loop_hop_ns=5\nend drops=0 records=0 t=0\n",
		   TS_TRACE_MODEL_LOOP_HOP, " model=256 loop_hop_ns=5\n");
	check_dump("header version=7 model=256 loop_hop_ns=5\nend drops=0 records=0 t=0\n",
		   TS_TRACE_MODEL_LOOP_HOP | TS_TRACE_MODEL_IMAGE, " model=256 loop_hop_ns=5\n");
	check_dump("header version=7 model=8 floor_ns=5\nend drops=0 records=0 t=0\n",
		   TS_TRACE_MODEL_FLOOR, " model=8 floor_ns=5\n");
	/* the loop hop (bit 0x100) is version 6's; a version 5 header's is
	 * in mount_opts, and one there that does not parse is refused */
	check_bad("header version=5 model=256\n", TS_E_PARSE,
		  "in.txt:1: header: model=256 sets bits a version 5 header does not have");
	check_bad("header version=6 loop_hop_ns=1\n", TS_E_PARSE,
		  "in.txt:1: header field loop_hop_ns without its bit (0x100) in model=");
	check_bad("header version=6 model=256 loop_hop_ns=x\n", TS_E_PARSE,
		  "in.txt:1: header field loop_hop_ns: bad value \"x\"");
	check_bad("header version=5 mount_opts=\"tier=x,loop_hop=5us(given)\"\n", TS_E_PARSE,
		  "in.txt:1: header mount_opts: loop_hop: '5us(given)'");
	/* its size and window parts (bit 0x200) are version 7's, only with
	 * the hop; a version 6 header's size part is in mount_opts */
	check_bad("header version=6 model=768\n", TS_E_PARSE,
		  "in.txt:1: header: model=768 sets bits a version 6 header does not have");
	check_bad("header version=7 model=256 loop_size_ns=1\n", TS_E_PARSE,
		  "in.txt:1: header field loop_size_ns without its bit (0x200) in model=");
	check_bad("header version=7 model=256 loop_window_ns=1\n", TS_E_PARSE,
		  "in.txt:1: header field loop_window_ns without its bit (0x200) in model=");
	check_bad("header version=7 model=512\n", TS_E_PARSE,
		  "in.txt:1: header: model= sets the loop hop's parts (0x200) without the hop (0x100)");
	check_bad("header version=7 model=768 loop_window_ns=5us\n", TS_E_PARSE,
		  "in.txt:1: header field loop_window_ns: bad value \"5us\"");
	check_bad("header version=6 model=256 mount_opts=\"loop_hop=1ns(measured),loop_hop_128k=\"\n",
		  TS_E_PARSE, "in.txt:1: header mount_opts: loop_hop_128k: '' is not a count of ns");
	/* the EBS limits (bit 0x80) are version 5's, finite and >= 0 */
	check_bad("header version=4 model=128\n", TS_E_PARSE,
		  "in.txt:1: header: model=128 sets bits a version 4 header does not have");
	check_bad("header version=5 model=128 ebs_iops=-1\n", TS_E_PARSE,
		  "in.txt:1: header field ebs_iops: bad value \"-1\"");
	check_bad("header version=5 model=128 ebs_bps=inf\n", TS_E_PARSE,
		  "in.txt:1: header field ebs_bps: bad value \"inf\"");
	check_bad("header version=5 ebs_burst_s=1\n", TS_E_PARSE,
		  "in.txt:1: header field ebs_burst_s without its bit (0x80) in model=");
	/* -0 is a non-zero bit pattern: the binary reader refuses it without the bit too */
	check_bad("header version=5 ebs_iops=-0\n", TS_E_PARSE,
		  "in.txt:1: header field ebs_iops without its bit (0x80) in model=");
	check_bad("header version=2 model=4 seed=5\n", TS_E_PARSE,
		  "in.txt:1: header: model options are version 3's");
	check_bad("header version=2 mount_opts=\"tier=x,floor=soon\"\n", TS_E_PARSE,
		  "in.txt:1: header mount_opts: floor=soon: ");
	check_bad("header version=0\n", TS_E_VERSION, "in.txt:1: trace version 0");
	/* CPU samples: version 2 only, right after a record of their thread */
	snprintf(text, sizeof(text), "%s1 2 read 0 0 0 0 9 0 0 0\ncpu 9 pid=9 ppid=1 on_ns=5 runq_ns=0\n",
		 hdr);
	check_bad(text, TS_E_PARSE, "in.txt:3: cpu line in a version 1 trace");
	char v2[256];
	snprintf(v2, sizeof(v2), "header version=2%s", hdr + strlen("header version=1"));
	snprintf(text, sizeof(text), "%s1 2 read 0 0 0 0 9 0 0 0\ncpu 8 pid=9 ppid=1 on_ns=5 runq_ns=0\n",
		 v2);
	check_bad(text, TS_E_PARSE, "in.txt:3: cpu line must follow an IO line of thread 8");
	snprintf(text, sizeof(text),
		 "%s1 2 read 0 0 0 0 9 0 0 0\ncpu 9 pid=9 ppid=1 on_ns=5 runq_ns=0\n"
		 "cpu 9 pid=9 ppid=1 on_ns=5 runq_ns=0\n",
		 v2);
	check_bad(text, TS_E_PARSE, "in.txt:4: cpu line must follow its IO line directly");
	snprintf(text, sizeof(text), "%s1 2 read 0 0 0 0 9 0 0 0\ncpu 9 pid=9 ppid=1 on_ns=x runq_ns=0\n",
		 v2);
	check_bad(text, TS_E_PARSE, "in.txt:3: field on_ns");
	snprintf(text, sizeof(text), "%s1 2 read 0 0 0 0 9 0 0 0\ncpu 9 pid=9 ppid=1 on_ns=5 runq_ns=0\n",
		 v2);
	check_bad(text, 0, "");
	check_bad("1 2 read 0 0 0 0 0 0 0 0\n", TS_E_PARSE, "in.txt:1: expected the header");
	snprintf(text, sizeof(text), "%s# c\n1 2 read 0 x 0 0 0 0 0 0\n", hdr);
	check_bad(text, TS_E_PARSE, "in.txt:3: field 5 (offset)");
	snprintf(text, sizeof(text), "%s1 2 reed 0 0 0 0 0 0 0 0\n", hdr);
	check_bad(text, TS_E_PARSE, "in.txt:2: field 3 (op)");
	snprintf(text, sizeof(text), "%spath 2 \"/a\"\n", hdr);
	check_bad(text, TS_E_PARSE, "field 1 (id): expected 1");
	snprintf(text, sizeof(text), "%spath 1 \"/a\n", hdr);
	check_bad(text, TS_E_PARSE, "unterminated string");
	snprintf(text, sizeof(text), "%send drops=0 records=0 t=0\n1 2 read 0 0 0 0 0 0 0 0\n",
		 hdr);
	check_bad(text, TS_E_PARSE, "in.txt:3: text after the end");
	snprintf(text, sizeof(text), "%s1 2 read 0 0 0 -5 0 0 0 65536\n", hdr);
	check_bad(text, TS_E_PARSE, "field 11 (flags)");
	snprintf(text, sizeof(text), "%s1 2 read 0 0 0 -5 0 0 0 0\n", hdr);
	check_bad(text, 0, "");

	/* A write that fails (a file size limit, as a full disk) leaves the
	 * trace that was there whole, and no temporary file beside it. */
	write_sample(a, 100, NULL);
	struct ts_trace t;
	CHECK(ts_trace_read(a, &t, text, sizeof(text)) == 0);
	CHECK(ts_trace_write(&t, b) == 0);
	size_t before, after;
	char *old = slurp(b, &before);
	struct rlimit lim, small;
	CHECK(getrlimit(RLIMIT_FSIZE, &lim) == 0);
	small = (struct rlimit){ 2048, lim.rlim_max };
	signal(SIGXFSZ, SIG_IGN);
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CHECK(ts_trace_write(&t, b) == -EFBIG);
	CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	char *now = slurp(b, &after);
	CHECK(old && now && before == after && !memcmp(old, now, before));
	char pat[64];
	snprintf(pat, sizeof(pat), "%s.*", b);
	glob_t g;
	CHECK(glob(pat, 0, NULL, &g) == GLOB_NOMATCH);
	free(old);
	free(now);
	ts_trace_free(&t);

	unlink(a);
	unlink(b);
	return tc_exit();
}

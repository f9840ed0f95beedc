/*
 * test_modeled.c — the decode calibration round-trips through its file (one
 * measured under an instrumenting tool is kept in memory, not written), and
 * the loader's modeled mode charges it: decode=modeled (and decode=auto with
 * more vCPUs than the host has cores) runs the modeled workers, says so in
 * its stats, and its workers are busy at least the calibrated cost of every
 * image (a sleep never ends early, so this lower bound is exact). With a
 * host profile that measured a DataLoader worker's own work, the folder
 * source's workers are busy that much more a sample.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <turbojpeg.h>
#include <unistd.h>

#include "pipeline/decode.h"
#include "pipeline/host.h"
#include "pipeline/loader.h"
#include "tests/tcheck.h"
#include "tests/pipeline/tp.h"

#define N 24

int main(void)
{
	char root[256], dir[300], cal_path[300], err[1024];
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(root, sizeof root, "%s/ts_modeled_XXXXXX", tmp);
	if (!mkdtemp(root))
		return 1;
	snprintf(dir, sizeof dir, "%s/set", root);
	snprintf(cal_path, sizeof cal_path, "%s/decode.json", root);
	mkdir(dir, 0755);
	tjhandle tj = tjInitCompress();
	int dims[N][2];
	for (int i = 0; i < N; i++) {
		int w = 64 + 24 * i, h = 48 + 16 * i;
		uint8_t *rgb = malloc((size_t)w * h * 3);
		for (int k = 0; k < w * h * 3; k++)
			rgb[k] = (uint8_t)(k * 31 + i);
		uint8_t *jpg = NULL;
		unsigned long len = 0;
		CHECK(tjCompress2(tj, rgb, w, 0, h, TJPF_RGB, &jpg, &len, TJSAMP_420, 90, 0) == 0);
		char p[400];
		snprintf(p, sizeof p, "%s/img%03d.jpg", dir, i);
		FILE *f = fopen(p, "wb");
		CHECK(f && fwrite(jpg, 1, len, f) == len);
		if (f)
			fclose(f);
		dims[i][0] = w;
		dims[i][1] = h;
		tjFree(jpg);
		free(rgb);
	}
	tjDestroy(tj);

	/* Calibrate on these images, one pass. */
	uint8_t **jpeg;
	size_t *len, n;
	CHECK(ts_decode_load_dir(dir, 0, &jpeg, &len, &n, err, sizeof err) == 0);
	CHECK_EQ_U64(n, N);
	struct ts_decode_cal cal, back;
	struct ts_decode_cal_detail det;
	CHECK(ts_decode_calibrate((const uint8_t *const *)jpeg, len, n, 32, 40, 0, &cal, &det, err,
				  sizeof err) == 0);
	for (size_t i = 0; i < n; i++)
		free(jpeg[i]);
	free(jpeg);
	free(len);
	CHECK_EQ_U64(cal.images, N);
	CHECK(cal.decode_ips > 0 && cal.full_ips > 0);
	CHECK(cal.base_ns >= 0 && cal.ns_per_mpix >= 0);
	CHECK(cal.base_ns + cal.ns_per_mpix > 0);
	CHECK(ts_decode_cal_save(cal_path, &cal, err, sizeof err) == 0);
	CHECK(ts_decode_cal_load(cal_path, &back, err, sizeof err) == 0);
	CHECK_NEAR(back.base_ns, cal.base_ns, 1e-9);
	CHECK_NEAR(back.ns_per_mpix, cal.ns_per_mpix, 1e-9);
	CHECK_EQ_U64(back.images, cal.images);
	CHECK(!strcmp(back.cpu, cal.cpu));

	/* A file that is not a calibration is refused with its name. */
	char junk[400];
	snprintf(junk, sizeof junk, "%s/junk.json", root);
	FILE *f = fopen(junk, "w");
	fputs("{\"base_ns\": \"fast\"}", f);
	fclose(f);
	CHECK(ts_decode_cal_load(junk, &back, err, sizeof err) < 0);
	CHECK(strstr(err, junk) != NULL);

	/* A calibration measured under an instrumenting tool is used, never
	 * saved: the memory map's libraries name the tool; its save writes no
	 * file and a load of that path returns it while no file is there; a
	 * file written there later wins. */
	char maps[400], tool[32] = "";
	snprintf(maps, sizeof maps, "%s/maps", root);
	f = fopen(maps, "w");
	fputs("55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1 /usr/bin/tiersim\n"
	      "04831000-04833000 r-xp 00001000 08:01 2 "
	      "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so\n",
	      f);
	fclose(f);
	CHECK(ts_decode_cal_tool(maps, tool, sizeof tool) == 1);
	CHECK(!strcmp(tool, "valgrind"));
	f = fopen(maps, "w");
	fputs("55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1 /usr/bin/tiersim\n"
	      "7f0c9a000000-7f0c9a040000 r-xp 00000000 08:01 3 /usr/lib/libjpeg.so.62\n"
	      "7ffd4e000000-7ffd4e021000 rw-p 00000000 00:00 0 [stack]\n",
	      f);
	fclose(f);
	tool[0] = 0;
	CHECK(ts_decode_cal_tool(maps, tool, sizeof tool) == 0);
	CHECK(tool[0] == 0);
	struct ts_decode_cal slow = cal, plain = cal;
	snprintf(slow.tool, sizeof slow.tool, "valgrind");
	slow.ns_per_mpix = cal.ns_per_mpix * 25 + 1;
	plain.tool[0] = 0;
	char held_path[400], other[400];
	snprintf(held_path, sizeof held_path, "%s/held.json", root);
	snprintf(other, sizeof other, "%s/other.json", root);
	CHECK(ts_decode_cal_save(held_path, &slow, err, sizeof err) == 0);
	CHECK(access(held_path, F_OK) != 0);
	CHECK(ts_decode_cal_load(held_path, &back, err, sizeof err) == 0);
	CHECK_NEAR(back.ns_per_mpix, slow.ns_per_mpix, 1e-12);
	CHECK(ts_decode_cal_load(other, &back, err, sizeof err) == -ENOENT);
	CHECK(ts_decode_cal_save(held_path, &plain, err, sizeof err) == 0);
	CHECK(access(held_path, F_OK) == 0);
	CHECK(ts_decode_cal_load(held_path, &back, err, sizeof err) == 0);
	CHECK_NEAR(back.ns_per_mpix, plain.ns_per_mpix, 1e-9);
	unlink(held_path);
	unlink(maps);

	uint64_t want_ns = 0;
	for (int i = 0; i < N; i++)
		want_ns += ts_decode_cal_ns(&cal, dims[i][0], dims[i][1]);

	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char vcpus[32];
	snprintf(vcpus, sizeof vcpus, "vcpus=%ld", cores + 3);
	const char *modes[] = { "decode=modeled", "decode=auto" };
	for (int m = 0; m < 2; m++) {
		struct ts_pipe_cfg cfg = { 0 };
		struct ts_pipe *p = NULL;
		char kv_path[400], kv_cal[400];
		snprintf(kv_path, sizeof kv_path, "path=%s", dir);
		snprintf(kv_cal, sizeof kv_cal, "calibration=%s", cal_path);
		const char *kv[] = { kv_path, kv_cal, modes[m], vcpus, "batch=5", "qd=4" };
		int rc = ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err);
		for (size_t i = 0; i < TS_ARRAY_SIZE(kv) && !rc; i++)
			rc = ts_opt_set_kv(ts_pipe_opts, &cfg, kv[i], err, sizeof err);
		if (!rc)
			rc = ts_pipe_new(&cfg, &p, err, sizeof err);
		ts_opt_free(ts_pipe_opts, &cfg);
		if (rc) {
			fprintf(stderr, "%s\n", err);
			CHECK(rc == 0);
			continue;
		}
		CHECK(ts_pipe_start(p) == 0);
		uint64_t got = 0;
		struct ts_batch *b;
		while (ts_pipe_next_batch(p, &b) >= 0 && b) {
			got += b->n;
			CHECK(b->data == NULL);
			ts_pipe_batch_release(p, b);
		}
		CHECK_EQ_U64(got, N);
		struct ts_pipe_stats st;
		ts_pipe_stats(p, &st);
		fprintf(stderr, "%s: %s\n", modes[m], st.decode_note);
		CHECK(!strcmp(st.decode_mode, "modeled"));
		CHECK(strstr(st.decode_note, cal_path) != NULL);
		CHECK_EQ_U64(st.decode_workers, (uint64_t)cores + 3);
		CHECK_EQ_U64(st.decode.samples, N);
		CHECK(st.decode.busy_ns >= want_ns);
		ts_pipe_free(p);
	}
	/* A host profile that measured a DataLoader worker's own work: the
	 * folder source's modeled workers are busy that much more a sample
	 * (loader_sample_ns + loader_batch_ns over the batch of 5), and say so. */
	struct ts_decode_cal hc;
	CHECK(ts_host_resolve("xeon-kvm-2vcpu/pillow", &hc, err, sizeof err) == 0);
	CHECK(hc.loader_sample_ns > 0 && hc.loader_batch_ns > 0);
	double per = hc.loader_sample_ns + hc.loader_batch_ns / 5;
	uint64_t host_ns = 0;
	for (int i = 0; i < N; i++)
		host_ns += ts_decode_cal_ns(&hc, dims[i][0], dims[i][1]) + (uint64_t)per;
	struct ts_pipe_cfg cfg = { 0 };
	struct ts_pipe *p = NULL;
	char kv_path[400];
	snprintf(kv_path, sizeof kv_path, "path=%s", dir);
	const char *kv[] = { kv_path, "host=xeon-kvm-2vcpu/pillow", "decode=modeled", "vcpus=8",
			     "batch=5", "qd=4", "source=folder" };
	int rc = ts_opt_defaults(ts_pipe_opts, &cfg, err, sizeof err);
	for (size_t i = 0; i < TS_ARRAY_SIZE(kv) && !rc; i++)
		rc = ts_opt_set_kv(ts_pipe_opts, &cfg, kv[i], err, sizeof err);
	if (!rc)
		rc = ts_pipe_new(&cfg, &p, err, sizeof err);
	ts_opt_free(ts_pipe_opts, &cfg);
	CHECK(rc == 0);
	if (!rc) {
		CHECK(ts_pipe_start(p) == 0);
		struct ts_batch *b;
		while (ts_pipe_next_batch(p, &b) >= 0 && b)
			ts_pipe_batch_release(p, b);
		struct ts_pipe_stats st;
		ts_pipe_stats(p, &st);
		fprintf(stderr, "host: %s\n", st.decode_note);
		char more[64];
		snprintf(more, sizeof more, "%.0f ns more per sample", per);
		CHECK(strstr(st.decode_note, more) != NULL);
		CHECK_EQ_U64(st.decode.samples, N);
		CHECK(st.decode.busy_ns >= host_ns);
		ts_pipe_free(p);
	}
	tp_rmrf(root);
	return tc_exit();
}

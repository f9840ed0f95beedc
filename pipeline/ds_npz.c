/*
 * ds_npz.c — the npz kind: DLIO's npz dataset (MLPerf Storage unet3d), one
 * file per sample written as numpy.savez(path, x=sample, y=label) writes
 * it: a zip of stored members x.npy (the sample, |u1) and y.npy (its
 * label, <i8 0, as DLIO's generator labels every sample). The layout is
 * in dliofmt.h; DLIO's PyTorch reader loads the whole file (np.load) per
 * sample, which is what source "npz" reads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/dataset.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/ds_kind.h"

static uint64_t npz_stored(uint64_t n)
{
	return ts_npz_size(n);
}

static int npz_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s);

static const struct ts_dlio_fmt npz_fmt = {
	.ext = "npz",
	.stored = npz_stored,
	.emit = npz_emit,
	.storage = "numpy savez: stored zip of x.npy |u1 and y.npy <i8",
};

static int npz_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s)
{
	uint64_t n = ts_dlio_payload_len(&npz_fmt, meta, f);
	char hx[128], hy[128];
	size_t lx = ts_npy_header(hx, sizeof(hx), "|u1", n);
	size_t ly = ts_npy_header(hy, sizeof(hy), "<i8", 1);
	uint8_t label[TS_NPZ_LABEL] = { 0 };
	/* the CRC of x first: it heads the member */
	uint32_t cx = ts_crc32(0, hx, lx);
	int rc = ts_dlio_payload(meta, f, n, NULL, &cx, NULL);
	if (rc)
		return rc;
	uint32_t cy = ts_crc32(ts_crc32(0, hy, ly), label, sizeof(label));
	uint32_t sx = (uint32_t)(lx + n), sy = (uint32_t)(ly + sizeof(label));
	uint32_t at_y = TS_NPZ_LFH + TS_NPZ_NAME + sx;
	uint32_t at_cd = at_y + TS_NPZ_LFH + TS_NPZ_NAME + sy;
	uint8_t h[256];
	size_t o = ts_zip_local(h, "x.npy", cx, sx);
	memcpy(h + o, hx, lx);
	if ((rc = s->put(s, h, o + lx)) || (rc = ts_dlio_payload(meta, f, n, s, NULL, NULL)))
		return rc;
	o = ts_zip_local(h, "y.npy", cy, sy);
	memcpy(h + o, hy, ly);
	memcpy(h + o + ly, label, sizeof(label));
	if ((rc = s->put(s, h, o + ly + sizeof(label))))
		return rc;
	o = ts_zip_central(h, "x.npy", cx, sx, 0);
	o += ts_zip_central(h + o, "y.npy", cy, sy, at_y);
	o += ts_zip_end(h + o, 2, (uint32_t)o, at_cd);
	return s->put(s, h, o);
}

static int npz_plan(const struct ts_dataset_config *cfg, struct ts_dataset_meta *meta, char *err,
		    size_t errlen)
{
	if (meta->per_file > 1)
		return ts_ds_fail(err, errlen, -EINVAL,
				  "npz: --samples_per_file %llu: this kind stores one sample per "
				  "file (as the MLPerf Storage npz workloads do)",
				  (unsigned long long)meta->per_file);
	return ts_dlio_plan(cfg, meta, err, errlen);
}

static const char *const npz_opts[] = { "samples_per_file", "record_length", "record_stdev",
					NULL };

const struct ts_dataset_ops ts_dataset_npz = {
	.name = "npz",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "DLIO npz files (numpy savez), one sample each: MLPerf Storage unet3d",
	.opts = npz_opts,
	/* MLPerf Storage unet3d: num_files_train 168 (storage-conf/workload/unet3d_*.yaml) */
	.full_count = 168,
	.unit = "files",
	.source = "npz",
	.input = TS_DLIO_DIR,
	.data = &npz_fmt,
	.plan = npz_plan,
	.generate = ts_dlio_generate,
	.verify = ts_dlio_verify,
	.storage = ts_dlio_storage,
};

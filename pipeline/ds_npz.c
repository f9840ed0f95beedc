/*
 * ds_npz.c — the npz kind: DLIO's npz dataset (MLPerf Storage unet3d), one
 * file per sample written as numpy.savez(path, x=sample, y=label) writes
 * it: a zip of stored members x.npy (the sample, |u1) and y.npy (its
 * label, <i8 0, as DLIO's generator labels every sample). The layout is
 * in dliofmt.h.
 *
 * Its reader, the loader source "npz", reads as DLIO's PyTorch NPZ reader
 * does: each sample is its own file, opened and read whole (np.load), then
 * the x array found in it (ds_dlio.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pipeline/dataset.h"
#include "pipeline/dliofmt.h"
#include "pipeline/ds_dlio.h"
#include "pipeline/ds_kind.h"

static int npz_emit(const struct ts_dataset_meta *meta, uint64_t f, struct ts_dlio_sink *s);

static const struct ts_dlio_fmt npz_fmt = {
	.ext = "npz",
	.stored = ts_npz_size,
	.emit = npz_emit,
	.storage = "numpy savez: stored zip of x.npy |u1 and y.npy <i8",
	.max_per_file = 1, /* as the MLPerf Storage npz workloads store them */
	.records = false,
	.find = ts_npz_find_x,
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
	uint32_t at_y = TS_NPZ_MEMBER + sx;
	uint32_t at_cd = at_y + TS_NPZ_MEMBER + sy;
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

const struct ts_dataset_ops ts_dataset_npz = {
	.name = "npz",
	.version = TS_DATASET_OPS_VERSION,
	.caps = 0,
	.help = "DLIO npz files (numpy savez), one sample each: MLPerf Storage unet3d",
	.opts = ts_dlio_dataset_opts,
	.opts_size = sizeof(struct ts_dlio_dataset_opts),
	/* MLPerf Storage unet3d: num_files_train 168 (storage-conf/workload/unet3d_*.yaml) */
	.full_count = 168,
	.unit = "files",
	.source = &ts_source_npz,
	.input = TS_DLIO_DIR,
	.data = &npz_fmt,
	.describe = ts_dlio_describe,
	.generate = ts_dlio_generate,
	.verify = ts_dlio_verify,
	.storage = ts_dlio_storage,
};

const struct ts_source_ops ts_source_npz = {
	.name = "npz",
	.data = &ts_dataset_npz,
	TS_DLIO_READER_HOOKS,
};

/*
 * cuda_load.c — the cuda backend as the program sees it: a registry entry
 * whose hooks open the module tiersim-cuda.so (engine/cuda.c, kernels/)
 * on first use and hand over to it, and the functions of cuda.h. Until
 * then nothing of CUDA is mapped: a CUDA build costs the runs that never
 * ask for the GPU nothing (the CUDA runtime, cuDNN and cuBLAS take about
 * 0.2 s of CPU and 220 MB to map and relocate at every start).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/cuda.h"
#include "engine/engine_int.h"

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct ts_cuda_module *loaded;

/* Where the module is: $TIERSIM_CUDA_MODULE, else beside the program, in
 * ../engine from it (the build tree), in the install's library directory;
 * the first that exists, or the last tried (the message names them). */
static void module_path(char *out, size_t n, char *tried, size_t tn)
{
	const char *env = getenv("TIERSIM_CUDA_MODULE");
	if (env && *env) {
		/* dlopen() searches the library path for a name without a '/';
		 * the variable names a file, relative to the working directory. */
		snprintf(out, n, "%s%s", strchr(env, '/') ? "" : "./", env);
		snprintf(tried, tn, "%s", out);
		return;
	}
	char self[PATH_MAX] = "";
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[len > 0 ? len : 0] = 0;
	char *slash = strrchr(self, '/'); /* the program's directory */
	if (slash)
		*slash = 0;
	const char *dirs[] = { slash ? self : NULL, slash ? "../engine" : NULL, TS_CUDA_MODULE_DIR };
	size_t used = 0;
	tried[0] = 0;
	for (size_t i = 0; i < TS_ARRAY_SIZE(dirs); i++) {
		if (!dirs[i])
			continue;
		if (dirs[i][0] == '/')
			snprintf(out, n, "%s/%s", dirs[i], TS_CUDA_MODULE_FILE);
		else
			snprintf(out, n, "%s/%s/%s", self, dirs[i], TS_CUDA_MODULE_FILE);
		int w = snprintf(tried + used, tn - used, "%s%s", used ? ", " : "", out);
		if (w > 0 && (size_t)w < tn - used)
			used += (size_t)w;
		if (access(out, F_OK) == 0)
			return;
	}
}

static int load(const struct ts_cuda_module **out, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], tried[3 * (PATH_MAX + 64)];
	module_path(path, sizeof(path), tried, sizeof(tried));
	if (access(path, F_OK)) {
		snprintf(err, errlen,
			 "cuda backend: its module is missing (looked for %s); reinstall tiersim "
			 "or set TIERSIM_CUDA_MODULE to the file", tried);
		return -ENOENT;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();
		snprintf(err, errlen, "cuda backend: cannot load %s: %s", path, why ? why : "?");
		return TS_E_FORMAT;
	}
	const struct ts_cuda_module *m = dlsym(h, "ts_cuda_module");
	const char *bad = !m					  ? "no ts_cuda_module in it"
			  : m->abi != TS_CUDA_MODULE_ABI		  ? "another module interface"
			  : !m->version || strcmp(m->version, TS_VERSION) ? "another tiersim version"
			  : m->engine_size != sizeof(struct ts_engine) ||
					  m->device_size != sizeof(struct ts_cuda_device)
				  ? "another build of tiersim"
			  : !m->ops || !m->device || !m->check_layers	  ? "a hook is missing"
									  : NULL;
	if (bad) {
		snprintf(err, errlen, "cuda backend: %s is not this tiersim's cuda module (%s)",
			 path, bad);
		dlclose(h);
		return TS_E_VERSION;
	}
	int rc = ts_engine_ops_check(m->ops, err, errlen);
	if (rc < 0) {
		dlclose(h);
		return rc;
	}
	*out = m; /* kept open for the process's life */
	return 0;
}

int ts_cuda_module_load(const struct ts_cuda_module **m, char *err, size_t errlen)
{
	int rc = 0;
	pthread_mutex_lock(&load_lock);
	if (!loaded)
		rc = load(&loaded, err, errlen);
	*m = loaded;
	pthread_mutex_unlock(&load_lock);
	return rc;
}

int ts_cuda_device(struct ts_cuda_device *d, char *err, size_t errlen)
{
	const struct ts_cuda_module *m;
	int rc = ts_cuda_module_load(&m, err, errlen);
	return rc < 0 ? rc : m->device(d, err, errlen);
}

int ts_cuda_check_layers(const char *netdef, int batch, double *max_rel, int *layers, char *err,
			 size_t errlen)
{
	const struct ts_cuda_module *m;
	int rc = ts_cuda_module_load(&m, err, errlen);
	return rc < 0 ? rc : m->check_layers(netdef, batch, max_rel, layers, err, errlen);
}

/* The registry's entry: init opens the module, the rest is the module's. */
static int proxy_init(struct ts_engine *e, char *err, size_t errlen)
{
	const struct ts_cuda_module *m;
	int rc = ts_cuda_module_load(&m, err, errlen);
	return rc < 0 ? rc : m->ops->init(e, err, errlen);
}

static int proxy_step(struct ts_engine *e, uint64_t samples, uint64_t *compute_ns,
		      uint64_t *comm_ns)
{
	return loaded->ops->step(e, samples, compute_ns, comm_ns);
}

static void proxy_cleanup(struct ts_engine *e)
{
	if (loaded)
		loaded->ops->cleanup(e);
}

const struct ts_engine_ops ts_engine_cuda_ops = {
	.name = "cuda",
	.version = TS_ENGINE_OPS_VERSION,
	.flags = TS_ENGINE_NEEDS_GPU,
	.help = TS_CUDA_HELP,
	.init = proxy_init,
	.step = proxy_step,
	.cleanup = proxy_cleanup,
};

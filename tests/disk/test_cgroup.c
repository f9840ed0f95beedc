/*
 * test_cgroup.c — the instance's memory as a memory cgroup (disk/cgroup.h):
 * the limit is set, a process moved in is there and its page cache is
 * charged to it, the caller moves in and back out (an in-process job),
 * and the cgroup goes at remove. Skips (77) without root or a memory
 * controller.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "disk/cgroup.h"
#include "tests/tcheck.h"

/* Whether /proc/self/cgroup's memory line (v1) or unified line (v2) ends
 * with @suffix. */
static bool in_cgroup(const char *suffix)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	bool found = false;
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		size_t n = strlen(line), k = strlen(suffix);
		found = n >= k && strcmp(line + n - k, suffix) == 0 &&
			(strstr(line, "memory") || strncmp(line, "0::", 3) == 0);
	}
	fclose(f);
	return found;
}

int main(void)
{
	struct ts_cgroup cg;
	struct ts_cgroup_stat st;
	char err[512], name[64];

	if (geteuid() != 0) {
		puts("SKIP: memory cgroups need root");
		return 77;
	}
	snprintf(name, sizeof(name), "test-%ld", (long)getpid());
	int rc = ts_cgroup_open(&cg, name, 32 << 20, err, sizeof(err));
	if (rc == -ENODEV) {
		printf("SKIP: %s\n", err);
		return 77;
	}
	CHECK(rc == 0);
	if (rc) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	CHECK(cg.home != NULL);
	CHECK(ts_cgroup_read(&cg, &st) == 0);
	CHECK_EQ_U64(st.limit, 32 << 20);
	/* A child moved in charges its page cache (8 MiB written) to it. */
	pid_t pid = fork();
	if (pid == 0) {
		if (ts_cgroup_enter(&cg, 0))
			_exit(2);
		int fd = open(".", O_TMPFILE | O_RDWR, 0600);
		char buf[1 << 16] = { 1 };
		for (int i = 0; fd >= 0 && i < 128; i++)
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(3);
		_exit(fd >= 0 && in_cgroup(name) ? 0 : 4);
	}
	int ws;
	CHECK(waitpid(pid, &ws, 0) == pid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
	CHECK(ts_cgroup_read(&cg, &st) == 0);
	CHECK(st.peak >= (8u << 20));
	/* The caller in and back out. */
	CHECK(!in_cgroup(name));
	CHECK(ts_cgroup_enter(&cg, 0) == 0);
	CHECK(in_cgroup(name));
	CHECK(ts_cgroup_leave(&cg) == 0);
	CHECK(!in_cgroup(name));
	/* Reopened with another limit: the same cgroup, the new limit. */
	struct ts_cgroup again;
	CHECK(ts_cgroup_open(&again, name, 64 << 20, err, sizeof(err)) == 0);
	CHECK(again.path && strcmp(again.path, cg.path) == 0);
	CHECK(ts_cgroup_read(&again, &st) == 0 && st.limit == (64u << 20));
	ts_cgroup_close(&again);
	char path[4096];
	snprintf(path, sizeof(path), "%s", cg.path);
	ts_cgroup_remove(&cg);
	CHECK(access(path, F_OK) != 0);
	return tc_failures ? 1 : 0;
}

/* tests/shim/deny.c — run a command with some system calls failing ENOSYS,
 * as on a kernel that lacks them.
 *
 *   deny NR[,NR...] CMD [ARG...]
 *
 * Installs a seccomp filter (after PR_SET_NO_NEW_PRIVS) that makes each
 * system call number NR (this architecture's numbers) fail with ENOSYS,
 * then execs CMD; the filter is inherited across exec and fork. The shim's
 * test uses it to see a design reported "skipped" on this machine, where
 * every design is available (tests/shim/log.sh). No machine state changes:
 * the filter dies with the process. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fputs("usage: deny NR[,NR...] CMD [ARG...]\n", stderr);
		return 2;
	}
	struct sock_filter prog[64];
	unsigned n = 0;
	/* another architecture's calls (x32, i386 on x86-64) are not ours */
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
#if defined(__x86_64__)
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
#elif defined(__aarch64__)
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0);
#else
	fputs("deny: unknown architecture\n", stderr);
	return 77;
#endif
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	for (char *p = argv[1], *end; *p; p = *end ? end + 1 : end) {
		long nr = strtol(p, &end, 10);
		if (end == p || nr < 0 || (*end && *end != ',') || n + 3 > sizeof prog / sizeof prog[0]) {
			fprintf(stderr, "deny: bad syscall list '%s'\n", argv[1]);
			return 2;
		}
		prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1);
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
							 SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
	}
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog fprog = { .len = (unsigned short)n, .filter = prog };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
		fprintf(stderr, "deny: seccomp: %s\n", strerror(errno));
		return 77;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "deny: %s: %s\n", argv[2], strerror(errno));
	return 127;
}

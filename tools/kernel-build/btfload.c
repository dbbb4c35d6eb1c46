/*
 * btfload FILE.btf: hand a raw .BTF section to the running kernel with
 * BPF_BTF_LOAD, as tests/testutil.c kernel_load_btf does, so the kernel's
 * own BTF verifier judges it. Needs root (or CAP_BPF). Prints one line
 * "accepted" or the tail of the verifier log; exits 0 if accepted, 1 if
 * rejected, 2 on a usage or I/O error. Uses the raw syscall: no libbpf.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VERIFIER_LOG_SIZE (16u << 20)
#define LOG_TAIL_SHOWN 4000

static char verifier_log[VERIFIER_LOG_SIZE];

int main(int argc, char **argv)
{
	union bpf_attr attr;
	char *btf_data;
	long btf_size;
	FILE *file;
	int btf_fd;

	if (argc != 2) {
		fprintf(stderr, "usage: btfload FILE.btf\n");
		return 2;
	}
	file = fopen(argv[1], "rb");
	if (!file || fseek(file, 0, SEEK_END) || (btf_size = ftell(file)) <= 0) {
		fprintf(stderr, "%s: cannot read: %s\n", argv[1], strerror(errno));
		return 2;
	}
	rewind(file);
	btf_data = malloc(btf_size);
	if (!btf_data || fread(btf_data, 1, btf_size, file) != (size_t)btf_size) {
		fprintf(stderr, "%s: cannot read %ld bytes\n", argv[1], btf_size);
		return 2;
	}
	fclose(file);

	memset(&attr, 0, sizeof(attr));
	attr.btf = (uintptr_t)btf_data;
	attr.btf_size = btf_size;
	attr.btf_log_buf = (uintptr_t)verifier_log;
	attr.btf_log_size = sizeof(verifier_log);
	attr.btf_log_level = 1;
	btf_fd = syscall(__NR_bpf, BPF_BTF_LOAD, &attr, sizeof(attr));
	if (btf_fd < 0) {
		int err = errno;
		size_t log_len = strlen(verifier_log);
		const char *tail = log_len > LOG_TAIL_SHOWN ?
				   verifier_log + log_len - LOG_TAIL_SHOWN : verifier_log;

		printf("%s: rejected: BPF_BTF_LOAD: %s\n%s\n", argv[1], strerror(err), tail);
		return 1;
	}
	printf("%s: accepted: %ld bytes (btf fd %d)\n", argv[1], btf_size, btf_fd);
	close(btf_fd);
	free(btf_data);
	return 0;
}

/*
 * fuzz-npy.c: fuzz target for the .npy reader.  The input becomes a file
 * (a memfd, reached through /proc/self/fd, so nothing touches the disk)
 * read by gp_npy_read_info and gp_npy_read_limit.  Properties: both agree
 * on whether the file is valid (below the size limit); the tensor read has
 * the shape, type and byte count the header gives; a refused file gives
 * one line naming it.
 */
#include "config.h"

#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "load/npy.h"
#include "graph/tensor.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64], prefix[72];
	struct gp_npy_info info;
	struct gp_tensor t;
	struct gp_err err = {{0}};
	int ri, rr;

	if (fd < 0) {
		if ((fd = memfd_create("fuzz.npy", 0)) < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		snprintf(prefix, sizeof(prefix), "%s: ", path);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	ri = gp_npy_read_info(path, &info, &err);
	if (ri < 0)
		fz_check_msg(err.msg, prefix, 0);
	rr = gp_npy_read_limit(path, FZ_LIMIT_BYTES, &t, &err);
	if (rr < 0) {
		fz_check_msg(err.msg, prefix, 0);
		if (ri == 0 && info.nbytes <= FZ_LIMIT_BYTES)
			fz_fail(
			    "the header reads but the file does not", err.msg);
		return (0);
	}
	if (ri < 0)
		fz_fail("the file reads but its header does not", "");
	if (t.ndim != info.ndim || t.dtype != info.dtype)
		fz_fail("the tensor's type differs from the header's", "");
	for (int d = 0; d < t.ndim; d++)
		if (t.shape[d] != info.shape[d])
			fz_fail(
			    "the tensor's shape differs from the header's", "");
	if (gp_tensor_nbytes(&t) != info.nbytes)
		fz_fail("the tensor's size differs from the header's", "");
	gp_tensor_release(&t);
	return (0);
}

/*
 * outfile.c: output files written atomically, and the check that no
 * output is an input or another output (see outfile.h).
 */
#include "config.h"

#include "base/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fatal.h"

/* Written in place, not through a temporary: a path that exists and is
 * neither a regular file nor a folder (a device, a pipe), or one under
 * /dev or /proc (/dev/stdout names the standard output, a regular file
 * when it is redirected to one: a rename would replace the link). */
static bool
in_place(const char *path)
{
	struct stat st;

	if (strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0)
		return (stat(path, &st) != 0 || !S_ISDIR(st.st_mode));
	return (stat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
	    !S_ISDIR(st.st_mode));
}

FILE *
gp_outfile_open(struct gp_outfile *af, const char *path,
    struct gp_err *err)
{
	const char *slash = strrchr(path, '/');
	mode_t mask;
	int fd;

	memset(af, 0, sizeof(*af));
	af->slot = -1;
	if (path[0] == '\0' || (slash != NULL && slash[1] == '\0')) {
		gp_err_set(err, "%s: not a file name", path);
		return (NULL);
	}
	if (in_place(path)) {
		/* a device, a pipe (/dev/stdout, /dev/null): written in
		 * place, never replaced by a rename */
		af->fp = fopen(path, "w");
		if (af->fp == NULL) {
			gp_err_set(err, "%s: cannot open: %s", path,
			    strerror(errno));
			return (NULL);
		}
		af->path = gp_xstrdup(path);
		return (af->fp);
	}
	if (slash != NULL)
		af->tmp = gp_xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path),
		    path, slash + 1);
	else
		af->tmp = gp_xasprintf(".%s.XXXXXX", path);
	fd = mkstemp(af->tmp);
	if (fd < 0) {
		gp_err_set(err, "%s: cannot create: %s", path,
		    strerror(errno));
		free(af->tmp);
		af->tmp = NULL;
		return (NULL);
	}
	af->slot = gp_fatal_tmp_add(af->tmp);
	/* mkstemp makes 0600; an output is an ordinary file */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	af->fp = fdopen(fd, "w");
	if (af->fp == NULL) {
		gp_err_set(err, "%s: %s", path, strerror(errno));
		close(fd);
		unlink(af->tmp);
		gp_fatal_tmp_drop(af->slot);
		af->slot = -1;
		free(af->tmp);
		af->tmp = NULL;
		return (NULL);
	}
	af->path = gp_xstrdup(path);
	return (af->fp);
}

int
gp_outfile_check(const char *path, struct gp_err *err)
{
	struct gp_outfile af;
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		gp_err_set(err, "%s: is a directory (expected a file to "
		    "write)", path);
		return (-1);
	}
	if (in_place(path))
		return (0);	/* not opened: a FIFO would wait for a reader */
	if (gp_outfile_open(&af, path, err) == NULL)
		return (-1);
	gp_outfile_abort(&af);
	return (0);
}

void
gp_outfile_abort(struct gp_outfile *af)
{
	if (af->fp != NULL)
		fclose(af->fp);
	if (af->tmp != NULL)
		unlink(af->tmp);
	gp_fatal_tmp_drop(af->slot);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	af->slot = -1;
}

int
gp_outfile_commit(struct gp_outfile *af, struct gp_err *err)
{
	const char *slash;
	char *dir;
	int fd, e = 0;

	if (fflush(af->fp) != 0 || ferror(af->fp))
		e = errno != 0 ? errno : EIO;
	else if (fsync(fileno(af->fp)) != 0 && errno != EINVAL)
		e = errno;
	if (fclose(af->fp) != 0 && e == 0)
		e = errno;
	af->fp = NULL;
	if (e == 0 && af->tmp != NULL && rename(af->tmp, af->path) != 0)
		e = errno;
	if (e == 0) {
		gp_fatal_tmp_drop(af->slot);
		af->slot = -1;
	}
	if (e != 0) {
		gp_err_set(err, "%s: cannot write: %s", af->path,
		    strerror(e));
		gp_outfile_abort(af);
		return (-1);
	}
	if (af->tmp == NULL) {	/* written in place */
		free(af->path);
		memset(af, 0, sizeof(*af));
		af->slot = -1;
		return (0);
	}
	/* make the rename itself durable */
	slash = strrchr(af->path, '/');
	dir = slash != NULL ? gp_xasprintf("%.*s", (int)(slash - af->path) +
	    (slash == af->path), af->path) : gp_xstrdup(".");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
	af->slot = -1;
	return (0);
}

/* A file's identity, to tell when two names are one file: its device and
 * inode when it exists; else its folder's and its name there (an output
 * not written yet).  Only regular files and files to be made count. */
struct file_id {
	dev_t		 dev;
	ino_t		 ino;
	const char	*name;	/* NULL: an existing file */
	size_t		 name_len;
};

static bool
file_id(const char *path, struct file_id *id)
{
	const char *slash = strrchr(path, '/');
	struct stat st;
	char *dir;
	int rc;

	memset(id, 0, sizeof(*id));
	if (stat(path, &st) == 0) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		return (S_ISREG(st.st_mode));
	}
	if (errno != ENOENT)
		return (false);
	dir = slash == NULL ? gp_xstrdup(".") : gp_xasprintf("%.*s",
	    (int)(slash - path) + (slash == path), path);
	rc = stat(dir, &st);
	free(dir);
	if (rc != 0)
		return (false);
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->name = slash != NULL ? slash + 1 : path;
	id->name_len = strlen(id->name);
	return (true);
}

static bool
same_file(const struct file_id *a, const struct file_id *b)
{
	if (a->dev != b->dev || a->ino != b->ino)
		return (false);
	if (a->name == NULL || b->name == NULL)
		return (a->name == b->name);
	return (a->name_len == b->name_len && memcmp(a->name, b->name,
	    a->name_len) == 0);
}

bool
gp_outfile_clash(const char *const *paths, int n_in, int n, int *out,
    int *with)
{
	struct file_id *id = gp_xcalloc((size_t)n + 1, sizeof(*id));
	bool *ok = gp_xcalloc((size_t)n + 1, sizeof(*ok));
	bool found = false;

	for (int i = 0; i < n; i++)
		ok[i] = paths[i] != NULL && file_id(paths[i], &id[i]);
	for (int i = n_in; i < n && !found; i++)
		for (int j = 0; j < i && ok[i] && !found; j++) {
			if (!ok[j] || !same_file(&id[i], &id[j]))
				continue;
			*out = i;
			*with = j;
			found = true;
		}
	free(id);
	free(ok);
	return (found);
}

/*
 * rewrite/jit.c: the JIT's compiler driver and cache (see jit.h).
 *
 * Once per process: find the compiler ($CC, else cc) and its identity (the
 * first line of `$CC --version`), the cache folder, whether glibc's libmvec
 * provides vector variants of the math functions (then the units compile
 * with `#pragma omp declare simd` declarations of them, -fopenmp-simd and
 * -fno-math-errno, and link with -lmvec), and which vector instructions
 * the CPU has: AVX2 and FMA (-mavx2 -mfma), AVX-512 F, DQ, VL and BW
 * (those too: libmvec's 8-wide double functions).  The flags name the
 * instruction sets explicitly (not -march=native), so the cache key,
 * which includes them, tells objects for different CPUs apart.  These are
 * "level 0" flags; if a compiler run fails with them but succeeds with
 * "level 1" flags (plain -O2, no vector declarations), the JIT stays at
 * level 1 for the process.
 *
 * A batch: the translation unit is the prelude, each unit wrapped in
 * `#define GP_KERNEL gp_k_<hash of the unit>`, and a version stamp
 * `gp_jit_stamp` naming the cache key.  The key hashes that text (stamp
 * excluded), the compiler identity and the flags.  Load: open the cached
 * object (no symlink: O_NOFOLLOW; a regular file of ours, not writable by
 * others), hash its bytes and compare with <key>.sum, which gptop wrote
 * when it compiled it, and only then dlopen it (through /proc/self/fd, so
 * the file loaded is the one hashed) and check the stamp and every symbol:
 * an object planted in the folder is never opened, so its constructors
 * never run.  Build: write the text to tmp-<pid>-<n>-<key>.c in the cache
 * folder, compile to a .so beside it (the compiler run with an argument
 * vector, $CC split at blanks, no shell), dlopen and check it, write
 * <key>.sum (atomic, through a temporary), then rename the .so to
 * <key>.so (atomic: a concurrent process sees the old entry or the new
 * one, never a partial file; an entry whose sum does not match is built
 * again).
 *
 * A process killed in the middle of a build leaves its tmp-<pid>-*
 * files (.c, .log, .so) behind: once per process, when the cache folder
 * is found, the temporaries of processes that are gone (kill(pid, 0)
 * fails with ESRCH) and that are a minute old are removed.  The age keeps
 * away from a live build of a process this one cannot see (another pid
 * namespace sharing the folder).
 */
#include "config.h"

#include "rewrite/jit.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "ops/elemwise.h"

#define JIT_ABI		"gptop-jit/1"
#define JIT_BLOCK	256

extern char **environ;

struct unit {
	uint64_t	 key;
	char		*src;
	gp_jit_fn	 fn;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local uint64_t thread_ns;

static struct {
	bool		 ok;
	char		 why[512];
	char		*cc;
	char		*ccid;	/* first line of --version */
	char		*dir;	/* cache folder, NULL: none */
	char		*refused;	/* why a cache folder was not used */
	bool		 mvec;
	int		 isa;	/* 0 baseline, 1 AVX2 and FMA, 2 AVX-512 */
	int		 level;
	struct gp_buf	 vecdecl;
	struct gp_buf	 describe;
} J;

static struct unit *units;	/* open addressing on key, 0 slots free */
static size_t n_units, cap_units;
static struct gp_jit_stats stats;
static unsigned long tmp_counter;

static void (*note_sink)(const char *msg);
static char *noted[64];
static int n_noted;

/*
 * Notes
 */

void
gp_jit_set_note_sink(void (*sink)(const char *msg))
{
	pthread_mutex_lock(&mu);
	note_sink = sink;
	pthread_mutex_unlock(&mu);
}

void
gp_jit_note(const char *key, const char *msg)
{
	bool say = true;

	pthread_mutex_lock(&mu);
	for (int i = 0; i < n_noted; i++)
		if (strcmp(noted[i], key) == 0)
			say = false;
	if (say && n_noted < 64)
		noted[n_noted++] = gp_xstrdup(key);
	if (say) {
		if (note_sink != NULL)
			note_sink(msg);
		else
			fprintf(stderr, "gptop: %s\n", msg);
	}
	pthread_mutex_unlock(&mu);
}

/*
 * The probe
 */

/* $CC split at blanks ("ccache gcc -m64"): the start of an argument
 * vector, NULL-terminated, with room for more words after. */
static char **
cc_words(const char *cc, int extra, int *n)
{
	char **v = gp_xcalloc(strlen(cc) / 2 + 2 + (size_t)extra,
	    sizeof(*v));
	const char *p = cc;

	*n = 0;
	while (*p != '\0') {
		size_t k;

		p += strspn(p, " \t");
		if ((k = strcspn(p, " \t")) == 0)
			break;
		v[(*n)++] = gp_xasprintf("%.*s", (int)k, p);
		p += k;
	}
	return (v);
}

/* More words: each blank-separated word of s appended to v. */
static void
add_words(char **v, int *n, const char *s)
{
	while (*s != '\0') {
		size_t k;

		s += strspn(s, " ");
		if ((k = strcspn(s, " ")) == 0)
			break;
		v[(*n)++] = gp_xasprintf("%.*s", (int)k, s);
		s += k;
	}
}

static void
free_words(char **v)
{
	for (char **p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

/*
 * Run argv (found on PATH, as execvp does; no shell) with stdin from
 * /dev/null and stdout and stderr to the file out (or stdout to the pipe
 * fd when out is NULL and pipe_fd >= 0, stderr to /dev/null).  Returns
 * the exit status, or -1 when it could not run or was killed.
 */
static int
run_argv(char *const *argv, const char *out, int pipe_fd, pid_t *pidp)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;

	if (posix_spawn_file_actions_init(&fa) != 0)
		return (-1);
	(void)posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY,
	    0);
	if (out != NULL) {
		(void)posix_spawn_file_actions_addopen(&fa, 1, out,
		    O_WRONLY | O_CREAT | O_TRUNC, 0600);
		(void)posix_spawn_file_actions_adddup2(&fa, 1, 2);
	} else {
		if (pipe_fd >= 0)
			(void)posix_spawn_file_actions_adddup2(&fa, pipe_fd,
			    1);
		(void)posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
		    O_WRONLY, 0);
	}
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return (-1);
	if (pidp != NULL) {
		*pidp = pid;
		return (0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return (-1);
	return (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* The first line `$CC --version` prints, and its exit status. */
static char *
cc_version(const char *cc, int *status)
{
	int n, fd[2], st;
	char **argv = cc_words(cc, 1, &n);
	char line[512];
	char *r = NULL;
	FILE *fp;
	pid_t pid;

	*status = -1;
	if (n == 0 || pipe2(fd, O_CLOEXEC) < 0) {
		free_words(argv);
		return (NULL);
	}
	argv[n++] = gp_xstrdup("--version");
	if (run_argv(argv, NULL, fd[1], &pid) < 0) {
		close(fd[0]);
		close(fd[1]);
		free_words(argv);
		return (NULL);
	}
	close(fd[1]);
	free_words(argv);
	if ((fp = fdopen(fd[0], "r")) == NULL) {
		close(fd[0]);
		(void)waitpid(pid, &st, 0);
		return (NULL);
	}
	if (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		r = gp_xstrdup(line);
	}
	while (fgets(line, sizeof(line), fp) != NULL)
		continue;
	fclose(fp);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return (r);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return (r);
}

static int
mkdir_one(const char *p)
{
	if (mkdir(p, 0700) == 0 || errno == EEXIST)
		return (0);
	return (-1);
}

/* The cache folder: created 0700; must be ours and not writable by
 * others. */
static char *
cache_dir(char **refused)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct stat st;
	char *base, *dir;

	if (x != NULL && x[0] == '/')
		base = gp_xstrdup(x);
	else {
		if (home == NULL || home[0] != '/') {
			struct passwd *pw = getpwuid(getuid());

			home = pw != NULL ? pw->pw_dir : NULL;
		}
		if (home == NULL || home[0] != '/')
			return (NULL);
		base = gp_xasprintf("%s/.cache", home);
	}
	/* create the parents too (0700, as the XDG spec asks) */
	for (char *p = base + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			(void)mkdir_one(base);
			*p = '/';
		}
	(void)mkdir_one(base);
	dir = gp_xasprintf("%s/gptop", base);
	free(base);
	char *why = NULL;

	if (mkdir_one(dir) < 0 || lstat(dir, &st) < 0)
		why = gp_xasprintf("cannot make it: %s", strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		why = gp_xstrdup(S_ISLNK(st.st_mode) ? "it is a symbolic "
		    "link" : "it is not a folder");
	else if (st.st_uid != getuid())
		why = gp_xasprintf("it belongs to user %ld, not to you (%ld)",
		    (long)st.st_uid, (long)getuid());
	else if ((st.st_mode & 022) != 0)
		why = gp_xasprintf("others can write to it (mode %03o)",
		    (unsigned)(st.st_mode & 0777));
	if (why != NULL) {
		const char *t = getenv("TMPDIR");

		/* said once (stderr, or the interface's status line), and
		 * kept for the Summary view */
		*refused = gp_xasprintf("JIT: cache folder %s not used: %s; "
		    "compiled code goes to a temporary folder in %s, removed "
		    "after each compile (every run compiles again)", dir,
		    why, t != NULL && t[0] == '/' ? t : "/tmp");
		free(why);
		free(dir);
		return (NULL);
	}
	return (dir);
}

#define STALE_TMP_S 60	/* a dead process's temporary: this old, removed */

/* Remove the temporaries of processes that are gone (see the top). */
static void
sweep_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long pid;
		struct stat st;

		if (strncmp(de->d_name, "tmp-", 4) != 0)
			continue;
		errno = 0;
		pid = strtol(de->d_name + 4, &end, 10);
		if (errno != 0 || end == de->d_name + 4 || *end != '-' ||
		    pid <= 0 || (pid_t)pid == getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;	/* alive, or not ours to ask about */
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) <
		    0 || !S_ISREG(st.st_mode) || now - st.st_mtime <
		    STALE_TMP_S)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0)
			stats.stale++;
	}
	closedir(d);
}

/* Math functions declared `simd` when libmvec has all their variants. */
static const struct {
	const char	*name;
	int		 arity;
} vec_fns[] = {
	{"exp", 1}, {"log", 1}, {"log1p", 1}, {"expm1", 1}, {"tanh", 1},
	{"sin", 1}, {"cos", 1}, {"pow", 2},
	/* glibc 2.35 and later */
	{"erf", 1}, {"tan", 1}, {"sinh", 1}, {"cosh", 1}, {"asin", 1},
	{"acos", 1}, {"atan", 1}, {"asinh", 1}, {"acosh", 1}, {"atanh", 1},
};

static bool
has_variants(void *h, const char *fn, int arity, bool f32)
{
	/* SSE4, AVX, AVX2, AVX-512: lanes for double; float has twice */
	static const struct {
		char	isa;
		int	lanes;
	} isas[] = {{'b', 2}, {'c', 4}, {'d', 4}, {'e', 8}};
	char sym[64];

	for (size_t i = 0; i < sizeof(isas) / sizeof(isas[0]); i++) {
		snprintf(sym, sizeof(sym), "_ZGV%cN%d%s_%s%s", isas[i].isa,
		    isas[i].lanes * (f32 ? 2 : 1), arity == 2 ? "vv" : "v", fn,
		    f32 ? "f" : "");
		if (dlsym(h, sym) == NULL)
			return (false);
	}
	return (true);
}

static void
probe(void)
{
	const char *cc = getenv("CC");
	int status;

	J.cc = gp_xstrdup(cc != NULL && cc[0] != '\0' ? cc : "cc");
	J.ccid = cc_version(J.cc, &status);
	if (J.ccid == NULL || status != 0) {
		snprintf(J.why, sizeof(J.why), "no C compiler ('%s --version' "
		    "failed; set CC)", J.cc);
		free(J.ccid);
		J.ccid = NULL;
		return;
	}
	{
		char *refused = NULL;

		J.dir = cache_dir(&refused);
		if (refused != NULL) {
			pthread_mutex_lock(&mu);
			J.refused = refused;
			pthread_mutex_unlock(&mu);
			gp_jit_note("jit-cache-refused", refused);
		}
	}
	if (J.dir != NULL)
		sweep_stale(J.dir);
	J.ok = true;
#if defined(__x86_64__) && defined(__GNUC__)
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		J.isa = 1;
	if (J.isa == 1 && __builtin_cpu_supports("avx512f") &&
	    __builtin_cpu_supports("avx512dq") &&
	    __builtin_cpu_supports("avx512vl") &&
	    __builtin_cpu_supports("avx512bw"))
		J.isa = 2;
	{
		void *h = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);

		if (h != NULL) {
			for (size_t i = 0; i < sizeof(vec_fns) /
			    sizeof(vec_fns[0]); i++) {
				const char *f = vec_fns[i].name;
				int a = vec_fns[i].arity;

				if (has_variants(h, f, a, false)) {
					gp_buf_printf(&J.vecdecl, "#pragma omp "
					    "declare simd notinbranch\ndouble "
					    "%s(double%s);\n", f,
					    a == 2 ? ", double" : "");
					J.mvec = true;
				}
				if (has_variants(h, f, a, true)) {
					gp_buf_printf(&J.vecdecl, "#pragma omp "
					    "declare simd notinbranch\nfloat "
					    "%sf(float%s);\n", f,
					    a == 2 ? ", float" : "");
					J.mvec = true;
				}
			}
			/* libmvec stays loaded: the kernels will need it */
		}
	}
#endif
}

static const char *
flags_of(int level)
{
	if (level > 0)
		return ("-std=gnu11 -O2 -fPIC -shared -w");
	if (J.isa == 2)
		return ("-std=gnu11 -O2 -fPIC -shared -w -fno-math-errno "
		    "-fno-trapping-math -ffp-contract=off -fopenmp-simd "
		    "-mavx2 -mfma -mavx512f "
		    "-mavx512dq -mavx512vl -mavx512bw");
	if (J.isa == 1)
		return ("-std=gnu11 -O2 -fPIC -shared -w -fno-math-errno "
		    "-fno-trapping-math -ffp-contract=off -fopenmp-simd "
		    "-mavx2 -mfma");
	return ("-std=gnu11 -O2 -fPIC -shared -w -fno-math-errno "
	    "-fno-trapping-math -ffp-contract=off -fopenmp-simd");
}

static const char *
libs_of(int level)
{
	return (level == 0 && J.mvec ? "-lmvec -lm" : "-lm");
}

bool
gp_jit_available(const char **why)
{
	pthread_once(&once, probe);
	if (why != NULL)
		*why = J.ok ? "" : J.why;
	return (J.ok);
}

const char *
gp_jit_cache_dir(void)
{
	pthread_once(&once, probe);
	return (J.dir != NULL ? J.dir : "");
}

const char *
gp_jit_cache_refused(void)
{
	const char *r;

	/* no probe (a capture has no compiler to ask): only what one saw */
	pthread_mutex_lock(&mu);
	r = J.refused != NULL ? J.refused : "";
	pthread_mutex_unlock(&mu);
	return (r);
}

const char *
gp_jit_describe(void)
{
	pthread_once(&once, probe);
	pthread_mutex_lock(&mu);
	gp_buf_clear(&J.describe);
	if (J.ok)
		gp_buf_printf(&J.describe, "%s (%s) %s %s; cache %s", J.cc,
		    J.ccid, flags_of(J.level), libs_of(J.level),
		    J.dir != NULL ? J.dir : "(none)");
	else
		gp_buf_printf(&J.describe, "off: %s", J.why);
	pthread_mutex_unlock(&mu);
	return (gp_buf_str(&J.describe));
}

/*
 * The unit table (under mu)
 */

static uint64_t
unit_key(const char *src)
{
	uint64_t h = gp_hash_bytes(GP_HASH_INIT, JIT_ABI, strlen(JIT_ABI));

	h = gp_hash_bytes(h, src, strlen(src));
	return (h != 0 ? h : 1);
}

static struct unit *
unit_find(uint64_t key, const char *src)
{
	size_t i;

	if (cap_units == 0)
		return (NULL);
	i = (size_t)key & (cap_units - 1);
	while (units[i].key != 0) {
		if (units[i].key == key && strcmp(units[i].src, src) == 0)
			return (&units[i]);
		i = (i + 1) & (cap_units - 1);
	}
	return (NULL);
}

static void
unit_add(uint64_t key, const char *src, gp_jit_fn fn)
{
	size_t i;

	if ((n_units + 1) * 2 > cap_units) {
		struct unit *old = units;
		size_t oc = cap_units;

		cap_units = cap_units ? cap_units * 2 : 64;
		units = gp_xcalloc(cap_units, sizeof(*units));
		n_units = 0;
		for (size_t j = 0; j < oc; j++)
			if (old[j].key != 0) {
				i = (size_t)old[j].key & (cap_units - 1);
				while (units[i].key != 0)
					i = (i + 1) & (cap_units - 1);
				units[i] = old[j];
				n_units++;
			}
		free(old);
	}
	i = (size_t)key & (cap_units - 1);
	while (units[i].key != 0)
		i = (i + 1) & (cap_units - 1);
	units[i].key = key;
	units[i].src = gp_xstrdup(src);
	units[i].fn = fn;
	n_units++;
}

void
gp_jit_forget(void)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < cap_units; i++)
		free(units[i].src);
	free(units);
	units = NULL;
	n_units = cap_units = 0;
	pthread_mutex_unlock(&mu);
}

void
gp_jit_get_stats(struct gp_jit_stats *st)
{
	pthread_mutex_lock(&mu);
	*st = stats;
	pthread_mutex_unlock(&mu);
}

uint64_t
gp_jit_thread_ns(void)
{
	return (thread_ns);
}

/*
 * Building a batch (under mu)
 */

struct batch {
	int		 n;
	const char	**src;
	uint64_t	*key;
	char		 keyhex[33];
	char		 stamp[64];
	struct gp_buf	 tu;
};

static void
batch_text(struct batch *b, int level)
{
	uint64_t h1, h2;
	const char *fl = flags_of(level), *li = libs_of(level);

	gp_buf_clear(&b->tu);
	gp_buf_printf(&b->tu, "/* generated by gptop (%s): fused elementwise "
	    "loops */\n#include <stdint.h>\n#include <math.h>\n", JIT_ABI);
	if (level == 0)
		gp_buf_puts(&b->tu, gp_buf_str(&J.vecdecl));
	gp_buf_puts(&b->tu, gp_elemwise_c_prelude);
	gp_buf_printf(&b->tu, "\n#define GP_JB %d\n", JIT_BLOCK);
	for (int i = 0; i < b->n; i++)
		gp_buf_printf(&b->tu, "\n#define GP_KERNEL gp_k_%016llx\n%s\n"
		    "#undef GP_KERNEL\n", (unsigned long long)b->key[i],
		    b->src[i]);
	h1 = gp_hash_bytes(GP_HASH_INIT, b->tu.s, b->tu.len);
	h2 = gp_hash_bytes(GP_HASH_INIT ^ 0x9e3779b97f4a7c15ULL, b->tu.s,
	    b->tu.len);
	h1 = gp_hash_bytes(h1, J.ccid, strlen(J.ccid));
	h1 = gp_hash_bytes(h1, J.cc, strlen(J.cc));
	h1 = gp_hash_bytes(h1, fl, strlen(fl));
	h1 = gp_hash_bytes(h1, li, strlen(li));
	h2 = gp_hash_bytes(h2, J.ccid, strlen(J.ccid));
	h2 = gp_hash_bytes(h2, fl, strlen(fl));
	snprintf(b->keyhex, sizeof(b->keyhex), "%016llx%016llx",
	    (unsigned long long)h1, (unsigned long long)h2);
	snprintf(b->stamp, sizeof(b->stamp), "%s:%s", JIT_ABI, b->keyhex);
	gp_buf_printf(&b->tu, "\nconst char gp_jit_stamp[] = \"%s\";\n",
	    b->stamp);
}

/* Check a loaded object and take its functions; closes it on failure. */
static bool
adopt(void *h, struct batch *b)
{
	const char *st = dlsym(h, "gp_jit_stamp");
	gp_jit_fn *fns;
	char sym[40];

	if (st == NULL || strcmp(st, b->stamp) != 0) {
		dlclose(h);
		return (false);
	}
	fns = gp_xcalloc((size_t)b->n + 1, sizeof(*fns));
	for (int i = 0; i < b->n; i++) {
		void *p;

		snprintf(sym, sizeof(sym), "gp_k_%016llx",
		    (unsigned long long)b->key[i]);
		p = dlsym(h, sym);
		if (p == NULL) {
			free(fns);
			dlclose(h);
			return (false);
		}
		/* POSIX: a function pointer converts through void * */
		memcpy(&fns[i], &p, sizeof(p));
	}
	for (int i = 0; i < b->n; i++)
		unit_add(b->key[i], b->src[i], fns[i]);
	free(fns);
	return (true);
}

static int
write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	size_t off = 0;

	if (fd < 0)
		return (-1);
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			unlink(path);
			return (-1);
		}
		off += (size_t)w;
	}
	if (close(fd) < 0) {
		unlink(path);
		return (-1);
	}
	return (0);
}

/* The first line of the compiler's messages that says "error". */
static void
log_error(const char *path, char *out, size_t outlen)
{
	FILE *fp = fopen(path, "r");
	char line[512];

	snprintf(out, outlen, "(no message)");
	if (fp == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (strstr(line, "error") != NULL) {
			snprintf(out, outlen, "%.200s", line);
			break;
		}
		if (strcmp(out, "(no message)") == 0)
			snprintf(out, outlen, "%.200s", line);
	}
	fclose(fp);
}

static void prune_cache(const char *keep);

/*
 * The recorded hash of a cache object: <key>.sum beside <key>.so holds
 * "gptop-jit-sum/1 SIZE HASH\n", HASH two FNV-1a 64 of the object's bytes
 * (different seeds), written by gptop after it compiled the object.
 */
#define JIT_SUM "gptop-jit-sum/1"

/* Hash the bytes of fd (a regular file of st_size bytes) as text. */
static bool
hash_fd(int fd, uint64_t size, char out[64])
{
	uint64_t h1 = GP_HASH_INIT, h2 = GP_HASH_INIT ^ 0x9e3779b97f4a7c15ULL;
	uint64_t got = 0;
	char buf[65536];

	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return (false);
		if (r == 0)
			break;
		h1 = gp_hash_bytes(h1, buf, (size_t)r);
		h2 = gp_hash_bytes(h2, buf, (size_t)r);
		got += (uint64_t)r;
	}
	if (got != size)
		return (false);
	snprintf(out, 64, "%s %llu %016llx%016llx\n", JIT_SUM,
	    (unsigned long long)size, (unsigned long long)h1,
	    (unsigned long long)h2);
	return (true);
}

/* Open path for reading: a regular file of ours that others cannot write,
 * not a symbolic link. */
static int
open_own(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return (-1);
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) ||
	    st->st_uid != getuid() || (st->st_mode & 022) != 0) {
		close(fd);
		return (-1);
	}
	return (fd);
}

/* The sum path of a cache object's path ("KEY.so" -> "KEY.sum"). */
static char *
sum_path(const char *so)
{
	size_t n = strlen(so);

	return (gp_xasprintf("%.*s.sum", (int)(n > 3 ? n - 3 : n), so));
}

/* Record the hash of the object so_path, which is to become final. */
static int
write_sum(const char *so_path, const char *final)
{
	struct stat st;
	char text[64], *sum = sum_path(final), *tmp;
	int fd = open_own(so_path, &st), rc = -1;

	if (fd < 0) {
		free(sum);
		return (-1);
	}
	if (hash_fd(fd, (uint64_t)st.st_size, text)) {
		tmp = gp_xasprintf("%s.tmp-%ld-%lu", sum, (long)getpid(),
		    tmp_counter++);
		if (write_file(tmp, text, strlen(text)) == 0 &&
		    rename(tmp, sum) == 0)
			rc = 0;
		else
			unlink(tmp);
		free(tmp);
	}
	close(fd);
	free(sum);
	return (rc);
}

/*
 * Open the cache object path if its bytes are the ones its sum records:
 * dlopen'ed through the descriptor that was hashed, so no other file can
 * take its place in between.  NULL: missing, planted, changed or a
 * symbolic link (nothing of it has run).
 */
static void *
open_verified(const char *path, struct stat *stp)
{
	struct stat st, ss;
	char want[64], have[64], *sum = sum_path(path), fdpath[64];
	int fd, sfd;
	ssize_t n = -1;
	void *h = NULL;

	sfd = open_own(sum, &ss);
	free(sum);
	if (sfd < 0)
		return (NULL);
	if (ss.st_size < (off_t)sizeof(want))
		n = read(sfd, want, sizeof(want) - 1);
	close(sfd);
	if (n <= 0)
		return (NULL);
	want[n] = '\0';
	if ((fd = open_own(path, &st)) < 0)
		return (NULL);
	if (hash_fd(fd, (uint64_t)st.st_size, have) &&
	    strcmp(have, want) == 0) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
		h = dlopen(access(fdpath, F_OK) == 0 ? fdpath : path,
		    RTLD_NOW | RTLD_LOCAL);
		*stp = st;
	}
	close(fd);
	return (h);
}

static int
compile(struct batch *b, int level, const char *final, struct gp_err *err)
{
	char *dir = NULL, *base, *c_path, *so_path, *log_path;
	char **argv;
	uint64_t t0;
	int rc = -1, st, argc;
	void *h;

	if (J.dir != NULL)
		base = gp_xasprintf("%s/tmp-%ld-%lu-%s", J.dir, (long)getpid(),
		    tmp_counter++, b->keyhex);
	else {
		const char *t = getenv("TMPDIR");

		dir = gp_xasprintf("%s/gptop-jit-XXXXXX", t != NULL &&
		    t[0] == '/' ? t : "/tmp");
		if (mkdtemp(dir) == NULL) {
			free(dir);
			return (gp_err_set(err, "JIT: cannot make a temporary "
			    "folder: %s", strerror(errno)));
		}
		base = gp_xasprintf("%s/k", dir);
	}
	c_path = gp_xasprintf("%s.c", base);
	so_path = gp_xasprintf("%s.so", base);
	log_path = gp_xasprintf("%s.log", base);
	if (write_file(c_path, b->tu.s, b->tu.len) < 0) {
		gp_err_set(err, "JIT: cannot write %s: %s", c_path,
		    strerror(errno));
		goto done;
	}
	/* $CC FLAGS... -o SO C LIBS..., no shell: names are never parsed */
	argv = cc_words(J.cc, 48, &argc);
	add_words(argv, &argc, flags_of(level));
	argv[argc++] = gp_xstrdup("-o");
	argv[argc++] = gp_xstrdup(so_path);
	argv[argc++] = gp_xstrdup(c_path);
	add_words(argv, &argc, libs_of(level));
	t0 = gp_clock_ns();
	st = argc > 0 ? run_argv(argv, log_path, -1, NULL) : -1;
	stats.compile_ns += gp_clock_ns() - t0;
	free_words(argv);
	if (st != 0) {
		char msg[256];

		log_error(log_path, msg, sizeof(msg));
		stats.failures++;
		gp_err_set(err, "JIT: %s failed (status %d): %s", J.cc, st,
		    msg);
		goto done;
	}
	stats.compiles++;
	h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		gp_err_set(err, "JIT: cannot load %s: %s", so_path, dlerror());
		goto done;
	}
	if (!adopt(h, b)) {
		gp_err_set(err, "JIT: %s lacks its symbols", so_path);
		goto done;
	}
	if (J.dir != NULL && (write_sum(so_path, final) < 0 ||
	    rename(so_path, final) < 0))
		gp_jit_note("jit-rename", "JIT: cannot store compiled code in "
		    "the cache folder");
	else if (J.dir != NULL)
		prune_cache(strrchr(final, '/') + 1);
	rc = 0;
done:
	unlink(c_path);
	unlink(log_path);
	if (rc < 0 || J.dir == NULL)
		unlink(so_path);
	if (dir != NULL) {
		rmdir(dir);
		free(dir);
	}
	free(base);
	free(c_path);
	free(so_path);
	free(log_path);
	return (rc);
}

/*
 * The cache's bound: past GP_JIT_CACHE_MAX bytes of compiled objects
 * (GPTOP_JIT_CACHE_MAX, in bytes, overrides it) the least recently used
 * go, down to three quarters of the bound.  "Used" is the file's mtime,
 * which a load from the cache refreshes when it is a day old.
 */
#define GP_JIT_CACHE_MAX ((uint64_t)64 << 20)

struct entry {
	char		*name;
	uint64_t	 bytes;
	time_t		 mtime;
};

static int
cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->mtime < y->mtime ? -1 : x->mtime > y->mtime);
}

static uint64_t
cache_max(void)
{
	const char *e = getenv("GPTOP_JIT_CACHE_MAX");
	char *end;
	unsigned long long v;

	if (e == NULL || *e == '\0')
		return (GP_JIT_CACHE_MAX);
	errno = 0;
	v = strtoull(e, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0)
		return (GP_JIT_CACHE_MAX);
	return ((uint64_t)v);
}

/* Prune the cache folder to its bound, never removing keep (a name). */
static void
prune_cache(const char *keep)
{
	DIR *d = opendir(J.dir);
	struct dirent *de;
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0, max = cache_max();

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		struct stat st;

		if (len < 4 || strcmp(de->d_name + len - 3, ".so") != 0 ||
		    strncmp(de->d_name, "tmp-", 4) == 0 ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) <
		    0 || !S_ISREG(st.st_mode))
			continue;
		gp_grow(&e, &cap, n + 1, sizeof(*e));
		e[n].name = gp_xasprintf("%s ", de->d_name);	/* room */
		e[n].name[len] = '\0';
		e[n].bytes = (uint64_t)st.st_size;
		e[n].mtime = st.st_mtime;
		total += e[n].bytes;
		n++;
	}
	if (total > max) {
		qsort(e, n, sizeof(*e), cmp_entry);
		for (size_t i = 0; i < n && total > max / 4 * 3; i++) {
			if (strcmp(e[i].name, keep) == 0 ||
			    unlinkat(dirfd(d), e[i].name, 0) < 0)
				continue;
			/* and its recorded hash: KEY.so -> KEY.sum */
			strcpy(e[i].name + strlen(e[i].name) - 3, ".sum");
			(void)unlinkat(dirfd(d), e[i].name, 0);
			total -= e[i].bytes;
			stats.pruned++;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(e[i].name);
	free(e);
	closedir(d);
}

static int
build_batch(struct batch *b, struct gp_err *err)
{
	for (;;) {
		int level = J.level;
		char *path = NULL;

		batch_text(b, level);
		if (J.dir != NULL) {
			struct stat st;

			path = gp_xasprintf("%s/%s.so", J.dir, b->keyhex);
			if (lstat(path, &st) == 0) {
				void *h = open_verified(path, &st);

				if (h != NULL && adopt(h, b)) {
					stats.disk_hits++;
					/* used: refresh its age, daily */
					if (time(NULL) - st.st_mtime > 86400)
						utimensat(AT_FDCWD, path, NULL,
						    0);
					free(path);
					return (0);
				}
				stats.rebuilds++;
			}
		}
		if (compile(b, level, path, err) == 0) {
			free(path);
			return (0);
		}
		free(path);
		if (level > 0) {
			/* plain flags fail too: the source is at fault, not
			 * the flags */
			J.level = 0;
			return (-1);
		}
		/* the vector math or the flags may be what failed: plain
		 * flags from now on, if they work */
		J.level = 1;
	}
}

int
gp_jit_build(const char *const *src, gp_jit_fn *fns, int n,
    struct gp_err *err)
{
	uint64_t t0 = gp_clock_ns();
	struct batch b = {0};
	int built = 0;

	for (int i = 0; i < n; i++)
		fns[i] = NULL;
	if (!gp_jit_available(NULL)) {
		gp_err_set(err, "%s", J.why);
		thread_ns += gp_clock_ns() - t0;
		return (0);
	}
	pthread_mutex_lock(&mu);
	b.src = gp_xcalloc((size_t)n + 1, sizeof(*b.src));
	b.key = gp_xcalloc((size_t)n + 1, sizeof(*b.key));
	for (int i = 0; i < n; i++) {
		uint64_t k = unit_key(src[i]);
		struct unit *u = unit_find(k, src[i]);
		bool dup = false;

		if (u != NULL) {
			stats.mem_hits++;
			continue;
		}
		for (int j = 0; j < b.n; j++)
			if (b.key[j] == k && strcmp(b.src[j], src[i]) == 0)
				dup = true;
		if (!dup) {
			b.src[b.n] = src[i];
			b.key[b.n++] = k;
		}
	}
	if (b.n == 0 || build_batch(&b, err) == 0)
		gp_err_set(err, "%s", "");
	for (int i = 0; i < n; i++) {
		struct unit *u = unit_find(unit_key(src[i]), src[i]);

		if (u != NULL) {
			fns[i] = u->fn;
			built++;
		}
	}
	pthread_mutex_unlock(&mu);
	gp_buf_free(&b.tu);
	free(b.src);
	free(b.key);
	thread_ns += gp_clock_ns() - t0;
	return (built);
}

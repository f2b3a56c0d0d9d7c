/*
 * diff-peer.c: a diff against ONNX Runtime's profile (capture/ort.h): its
 * nodes matched to the source nodes of the gptop capture on the other
 * side, so that the diff pairs the two by provenance (diff-prov.c), and
 * the ONNX op type both sides' Ops rows are named by (diff-impl.h,
 * struct gp_diff_peer).
 *
 * An ONNX Runtime profile names nodes, not source sets.  A node's sources,
 * in the gptop capture's source table, are found from its name (the rules
 * in doc/capture-format.md, "Diffing ONNX Runtime against gptop"):
 *   - the name of a source node ("/fc2/Gemm"; ONNX Runtime's "fused
 *     /fc1/Gemm" is read as "/fc1/Gemm" by ort.c);
 *   - else the name of a value some gptop apply computes: the sources of
 *     that apply (ONNX Runtime's NCHWc convolutions are named after their
 *     output, "/relu/Relu_output_0_nchwc": "_nchwc" is dropped);
 *   - else, for a value of the form "NODE_output_N" that no gptop apply
 *     computes any more (join_into writes a conv's output straight into
 *     its join's tensor), the node NODE;
 *   - else the name up to its first component naming a fusion
 *     ("/l0/MatMul/MatMulAddFusion": "/l0/MatMul"), and what that fusion
 *     took in (absorb): a MatMulAddFusion's Add of the same scope, a
 *     GatherSliceToSplitFusion's sibling Slices;
 *   - ONNX Runtime's gemm_input_reshape and gemm_output_reshape: the
 *     sources of the Gemm they reshape for (gemm_reshapes).
 * Then the gptop applies none of whose sources a node claims (what ONNX
 * Runtime fused into a node, or removed) are given to a neighbour's node
 * where the data flow says which, when that node says it fused more than
 * its name (an op "FusedX", a name "fused X" or "..._nchwc"): an apply
 * whose input comes from the node's apply that feeds it alone (ONNX
 * Runtime fuses a node into its producer: the Relu after a Gemm, the Add
 * and Relu after a convolution; the latest producer first), else whose
 * output feeds the node's apply alone (a Transpose into a FusedMatMul),
 * until nothing changes.  Its sources become the node's.  Last, a stretch
 * of gptop applies still without a node, between two nodes' applies in
 * schedule order, goes to the nodes ONNX Runtime ran between those two
 * that claim nothing (its SkipLayerNormalization against gptop's Add and
 * LayerNorm ops).  What none of this finds stays only on its side (ONNX
 * Runtime's layout reorders; gptop's applies of what ONNX Runtime
 * removed).
 *
 * The Ops rows of such a diff are ONNX op types: an ONNX Runtime node's
 * op_name less a "Fused" prefix (FusedConv: Conv), a gptop apply's the
 * op type of the node that covers its sources (gptop's Gemm{tB}, its
 * transpose and its output's allocation all in Gemm; the Relu ONNX
 * Runtime fused into its FusedGemm in Gemm too), else its own op less
 * its parameters (Conv{3x3,p1,relu}: Conv).
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "capture/diff-impl.h"
#include "capture/ort.h"

#define NCHWC_SUFFIX "_nchwc"
/* A node's output value: "NODE_output_0" */
#define OUTPUT_INFIX "_output_"

/* What a node's name says ONNX Runtime's fusion did besides the node it
 * names (claim_node: its first component naming a fusion). */
enum fusion {
	FUSION_NONE,
	FUSION_ADD,	/* MatMulAddFusion: the Add after the MatMul too,
			 * as a Gemm */
	FUSION_SPLIT	/* GatherSliceToSplitFusion, GatherToSplitFusion:
			 * the sibling Slices (Gathers) of one input too,
			 * as one Split */
};

/* The Reshapes ONNX Runtime puts around a Gemm it made of a MatMul and an
 * Add of more than two dimensions (its MatMulAddFusion), named after no
 * ONNX node. */
#define GEMM_IN_RESHAPE		"gemm_input_reshape"
#define GEMM_OUT_RESHAPE	"gemm_output_reshape"

/* A name of n bytes as a key of the maps. */
static uint64_t
hname(const char *s, size_t n)
{
	uint64_t h = GP_HASH_INIT;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return (gp_hash_mix(h, n));
}

/* A string-to-index map: names[i] under key. */
struct smap {
	struct gp_diff_kmap	 m;
	int			*next;
	const char		**names;
	int			*val;
	int			 n;
};

static void
smap_init(struct smap *s, int cap)
{
	gp_diff_kmap_init(&s->m, (size_t)cap);
	s->next = gp_xmalloc(sizeof(int) * ((size_t)cap + 1));
	s->names = gp_xmalloc(sizeof(char *) * ((size_t)cap + 1));
	s->val = gp_xmalloc(sizeof(int) * ((size_t)cap + 1));
	s->n = 0;
}

static void
smap_free(struct smap *s)
{
	gp_diff_kmap_free(&s->m);
	free(s->next);
	free(s->names);
	free(s->val);
}

/* Add name -> v: put names in decreasing order of v, the first (the
 * smallest v) of a name is found. */
static void
smap_put(struct smap *s, const char *name, int v)
{
	int i = s->n++;

	s->names[i] = name;
	s->val[i] = v;
	gp_diff_kmap_push(&s->m, s->next, hname(name, strlen(name)), i);
}

/* The value of s[0..n), or -1. */
static int
smap_get(const struct smap *s, const char *name, size_t n)
{
	size_t h = gp_diff_kmap_slot(&s->m, hname(name, n));

	for (int i = s->m.head[h]; i >= 0; i = s->next[i])
		if (strlen(s->names[i]) == n &&
		    memcmp(s->names[i], name, n) == 0)
			return (s->val[i]);
	return (-1);
}

/* Does s[0..n) hold the string t? */
static bool
has(const char *s, size_t n, const char *t)
{
	size_t k = strlen(t);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(s + i, t, k) == 0)
			return (true);
	return (false);
}

/* The fusion a component naming one (names_fusion) says more of. */
static enum fusion
fusion_of(const char *s, size_t n)
{
	if (has(s, n, "MatMulAddFusion"))
		return (FUSION_ADD);
	if (has(s, n, "ToSplitFusion"))
		return (FUSION_SPLIT);
	return (FUSION_NONE);
}

/* Does the component s[0..n) name one of ONNX Runtime's fusions? */
static bool
names_fusion(const char *s, size_t n)
{
	return (has(s, n, "Fusion"));
}

/* The ONNX op type of an ONNX Runtime op: less a "Fused" prefix. */
static char *
ort_type(const char *op)
{
	if (strncmp(op, "Fused", 5) == 0 && isupper((unsigned char)op[5]))
		return (gp_xstrdup(op + 5));
	return (gp_xstrdup(op));
}

/* A gptop op less its parameters: "Conv{3x3,p1}" is "Conv". */
static char *
base_type(const char *op)
{
	size_t n = strcspn(op, "{[(");

	return (gp_xasprintf("%.*s", (int)(n > 0 ? n : strlen(op)), op));
}

struct map {
	const struct gp_prof_fn	*ort, *gp;
	char *const		*src_names;	/* the gptop side's */
	bool			*fusing;	/* per ORT node (fuses_more) */
	enum fusion		*fusion;	/* per ORT node */
	/* per ORT node, the name the fusion rule claimed (the node
	 * "/l0/MatMul" of "/l0/MatMul/MatMulAddFusion"), its length */
	const char		**base;
	size_t			*base_len;
	struct smap		 src, val;	/* source, value -> index */
	int			*owner;	/* per source: the ORT node, or -1 */
	int			*node;	/* per gptop apply: ORT node, or -1 */
	int			*n_use;	/* per gptop apply: consumers */
	int			*use;	/* per gptop apply: its one consumer */
};

/* Node o does the work of source s (its set without repeats).  A source
 * two nodes claim is owned by the first (owner[]); the second's set has
 * it too, which links the two in diff-prov.c. */
static void
claim(struct gp_prof_apply *o, int s)
{
	for (int i = 0; i < o->n_src; i++)
		if (o->src[i] == s)
			return;
	o->src = gp_xrealloc(o->src, sizeof(int) * ((size_t)o->n_src + 1));
	o->src[o->n_src++] = s;
}

/* Node k's claim on the name s[0..n): a source, or a value's apply. */
static bool
claim_name(struct map *m, struct gp_prof_apply *o, int k, const char *s,
    size_t n)
{
	int x = smap_get(&m->src, s, n), before = o->n_src;

	if (x >= 0) {
		claim(o, x);
		if (m->owner[x] < 0)
			m->owner[x] = k;
		return (true);
	}
	if ((x = smap_get(&m->val, s, n)) >= 0) {
		const struct gp_prof_apply *a = &m->gp->ap[x];

		for (int i = 0; i < a->n_src; i++) {
			claim(o, a->src[i]);
			if (m->owner[a->src[i]] < 0)
				m->owner[a->src[i]] = k;
		}
	}
	return (o->n_src > before);
}

/* The length of the node name in a value name s[0..n) of the form
 * "NODE_output_N" (how torch's exporter, among others, names a node's
 * outputs), or 0. */
static size_t
output_of(const char *s, size_t n)
{
	size_t d = n, tl = strlen(OUTPUT_INFIX);

	while (d > 0 && isdigit((unsigned char)s[d - 1]))
		d--;
	if (d == n || d <= tl || memcmp(s + d - tl, OUTPUT_INFIX, tl) != 0)
		return (0);
	return (d - tl);
}

/* The sources ORT node k names (struct gp_diff_peer's rules). */
static void
claim_node(struct map *m, struct gp_prof_apply *o, int k)
{
	const char *s = o->name;
	size_t n = strlen(s), sl = strlen(NCHWC_SUFFIX), v = n, p;

	if (claim_name(m, o, k, s, n))
		return;
	if (n > sl && strcmp(s + n - sl, NCHWC_SUFFIX) == 0) {
		if (claim_name(m, o, k, s, n - sl))
			return;
		v = n - sl;
	}
	/* a value no gptop apply computes any more (a rewrite wrote it into
	 * another tensor, or fused it away): the node it is named after */
	if ((p = output_of(s, v)) > 0 && claim_name(m, o, k, s, p))
		return;
	for (size_t i = 1; i < n; i++)
		if (s[i] == '/') {
			size_t e = i + 1;

			while (e < n && s[e] != '/')
				e++;
			if (names_fusion(s + i + 1, e - i - 1)) {
				claim_name(m, o, k, s, i);
				m->fusion[k] = fusion_of(s + i + 1, e - i - 1);
				m->base[k] = s;
				m->base_len[k] = i;
				return;
			}
		}
}

/* Does ORT's node o say it fused more than the node it is named after:
 * an op "FusedX", a name "fused X" or an NCHWc convolution's (which takes
 * in the Add and activation after it)? */
static bool
fuses_more(const struct gp_prof_apply *o)
{
	size_t n = strlen(o->node), sl = strlen(NCHWC_SUFFIX);

	return ((strncmp(o->op, "Fused", 5) == 0 &&
	    isupper((unsigned char)o->op[5])) ||
	    strncmp(o->node, "fused ", 6) == 0 ||
	    (n > sl && strcmp(o->node + n - sl, NCHWC_SUFFIX) == 0));
}

/* The ORT node of gptop apply i: its first claimed source's, or -1. */
static int
node_of(const struct map *m, int i)
{
	const struct gp_prof_apply *a = &m->gp->ap[i];

	for (int k = 0; k < a->n_src; k++)
		if (m->owner[a->src[k]] >= 0)
			return (m->owner[a->src[k]]);
	return (-1);
}

/* Node k takes gptop apply i: its sources (owned where no node owns
 * them yet). */
static void
give(struct map *m, struct gp_prof_apply *ort_ap, int i, int k)
{
	const struct gp_prof_apply *a = &m->gp->ap[i];

	for (int s = 0; s < a->n_src; s++) {
		claim(&ort_ap[k], a->src[s]);
		if (m->owner[a->src[s]] < 0)
			m->owner[a->src[s]] = k;
	}
	m->node[i] = k;
}

/* Give unclaimed gptop applies to their neighbours' nodes; true when one
 * was given. */
static bool
spread(struct map *m, struct gp_prof_apply *ort_ap)
{
	const struct gp_prof_fn *g = m->gp;
	bool any = false;

	for (int i = 0; i < g->n_apply; i++) {
		const struct gp_prof_apply *a = &g->ap[i];
		int k = -1, from = -1;

		if (m->node[i] >= 0 || a->n_src == 0)
			continue;
		/* the latest producer that feeds this apply alone */
		for (int j = 0; j < a->n_in; j++) {
			int p = a->in_producer[j];

			if (p >= 0 && p > from && m->node[p] >= 0 &&
			    m->fusing[m->node[p]] && m->n_use[p] == 1) {
				from = p;
				k = m->node[p];
			}
		}
		/* else the one apply this one feeds */
		if (k < 0 && m->n_use[i] == 1 && m->node[m->use[i]] >= 0 &&
		    m->fusing[m->node[m->use[i]]])
			k = m->node[m->use[i]];
		if (k < 0)
			continue;
		give(m, ort_ap, i, k);
		any = true;
	}
	return (any);
}

/* Does the last component of the source name s start with one of the
 * ONNX op types ops[] ("/l0/Add_1": Add)? */
static bool
named_op(const char *s, const char *const *ops)
{
	const char *b = strrchr(s, '/');

	b = b != NULL ? b + 1 : s;
	for (; *ops != NULL; ops++)
		if (strncmp(b, *ops, strlen(*ops)) == 0)
			return (true);
	return (false);
}

/* Is source s named in the scope of node k's fusion base ("/l0/Add"
 * beside "/l0/MatMul")? */
static bool
same_scope(const struct map *m, int k, const char *s)
{
	const char *b = m->base[k];
	size_t n = m->base_len[k];

	while (n > 0 && b[n - 1] != '/')
		n--;
	return (n > 0 && strncmp(s, b, n) == 0 && strchr(s + n, '/') ==
	    NULL);
}

/*
 * What ONNX Runtime's fusions named in a node's name took in besides the
 * node named (claim_node): a MatMulAddFusion's Gemm also does the Add
 * after the MatMul, an Add of the same scope ("/l0/Add" beside
 * "/l0/MatMul") among the sources of gptop's apply of the MatMul or of
 * the applies reading it: claimed (it links the node with whatever gptop
 * fused that Add into, its Relu), owned by none; a GatherSliceToSplitFusion's
 * Split also does the sibling Slices (Gathers) reading the same input:
 * gptop's applies of such sources with no node yet join the node.
 */
static void
absorb(struct map *m, struct gp_prof_apply *ort_ap)
{
	static const char *const add[] = {"Add", NULL};
	static const char *const split[] = {"Slice", "Gather", NULL};
	const struct gp_prof_fn *g = m->gp;

	for (int i = 0; i < g->n_apply; i++) {
		const struct gp_prof_apply *a = &g->ap[i];

		/* i itself, or one reading a MatMulAddFusion node's apply */
		for (int q = -1; q < a->n_in; q++) {
			int p = q < 0 ? i : a->in_producer[q], k;

			if (p < 0 || (k = m->node[p]) < 0 ||
			    m->fusion[k] != FUSION_ADD)
				continue;
			for (int s = 0; s < a->n_src; s++)
				if (named_op(m->src_names[a->src[s]], add) &&
				    same_scope(m, k, m->src_names[a->src[s]]))
					claim(&ort_ap[k], a->src[s]);
		}
	}
	for (int i = 0; i < g->n_apply; i++) {
		const struct gp_prof_apply *a = &g->ap[i];
		int k = -1;
		bool sliced = a->n_src > 0;

		if (m->node[i] >= 0 || a->n_in == 0 || a->in_producer[0] < 0)
			continue;
		for (int s = 0; s < a->n_src; s++)
			sliced &= named_op(m->src_names[a->src[s]], split);
		/* a sibling: another apply of the same data input whose
		 * node is a Split fusion's */
		for (int j = 0; sliced && j < g->n_apply && k < 0; j++)
			if (j != i && m->node[j] >= 0 &&
			    m->fusion[m->node[j]] == FUSION_SPLIT &&
			    g->ap[j].n_in > 0 &&
			    g->ap[j].in_producer[0] == a->in_producer[0])
				k = m->node[j];
		if (k < 0)
			continue;
		give(m, ort_ap, i, k);
	}
}

/* Same dtype and shape, or either unknown (a profile without them)? */
static bool
io_fits(const struct gp_prof_io *x, int nx, const struct gp_prof_io *y,
    int ny)
{
	return (nx == 0 || ny == 0 || gp_prof_io_same_shape(x, y));
}

/* ONNX Runtime's Reshapes around the Gemms its MatMulAddFusion made
 * (GEMM_IN_RESHAPE, GEMM_OUT_RESHAPE: named after no ONNX node) do that
 * Gemm's sources: the nearest Gemm after an input's reshape whose input
 * it makes, before an output's whose output it takes.  Claimed, owned by
 * the Gemm's node. */
static void
gemm_reshapes(struct map *m, struct gp_prof_apply *ort_ap)
{
	const struct gp_prof_fn *o = m->ort;

	for (int k = 0; k < o->n_apply; k++) {
		const struct gp_prof_apply *r = &o->ap[k];
		bool in = strncmp(r->name, GEMM_IN_RESHAPE,
		    strlen(GEMM_IN_RESHAPE)) == 0;
		bool out = strncmp(r->name, GEMM_OUT_RESHAPE,
		    strlen(GEMM_OUT_RESHAPE)) == 0;
		int step = in ? 1 : -1, j;

		if ((!in && !out) || ort_ap[k].n_src > 0)
			continue;
		for (j = k + step; j >= 0 && j < o->n_apply; j += step)
			if (strcmp(o->ap[j].op, "Gemm") == 0 ||
			    strcmp(o->ap[j].op, "FusedGemm") == 0)
				break;
		if (j < 0 || j >= o->n_apply)
			continue;
		if (in ? !io_fits(r->out, r->n_out, o->ap[j].in,
		    o->ap[j].n_in) : !io_fits(o->ap[j].out, o->ap[j].n_out,
		    r->in, r->n_in))
			continue;
		for (int s = 0; s < ort_ap[j].n_src; s++)
			claim(&ort_ap[k], ort_ap[j].src[s]);
	}
}

/* The gptop applies still without a node, between the applies of two
 * nodes kp < ks in schedule order (the closest before and after them),
 * go to ONNX Runtime's nodes that match no source and run between kp and
 * ks: the same stretch of the model, done by other kernels (ONNX
 * Runtime's SkipLayerNormalization against gptop's Add and LayerNorm
 * ops).  Each such node covers the stretch's sources, so the grouping
 * makes them one group; the slowest owns them (its op type names the
 * stretch's Ops rows). */
static void
align(struct map *m, struct gp_prof_apply *ort_ap)
{
	const struct gp_prof_fn *g = m->gp;
	int n_ort = m->ort->n_apply, i = 0;

	while (i < g->n_apply) {
		int lo = i, hi, kp = -1, ks = n_ort, best;

		if (m->node[i] >= 0 || g->ap[i].n_src == 0) {
			i++;
			continue;
		}
		/* the stretch [lo, hi) of applies without a node */
		hi = lo;
		while (hi < g->n_apply && m->node[hi] < 0)
			hi++;
		i = hi;
		for (int j = lo - 1; j >= 0 && kp < 0; j--)
			kp = m->node[j];
		for (int j = hi; j < g->n_apply && ks == n_ort; j++)
			if (m->node[j] >= 0)
				ks = m->node[j];
		if (kp >= ks)
			continue;
		best = -1;
		for (int k = kp + 1; k < ks; k++) {
			if (ort_ap[k].n_src > 0)
				continue;
			if (best < 0 || ort_ap[k].st.total >
			    ort_ap[best].st.total)
				best = k;
			for (int j = lo; j < hi; j++)
				for (int s = 0; s < g->ap[j].n_src; s++)
					claim(&ort_ap[k], g->ap[j].src[s]);
		}
		/* owned by the stretch's slowest node (its Ops row) */
		for (int j = lo; j < hi && best >= 0; j++)
			for (int s = 0; s < g->ap[j].n_src; s++)
				if (m->owner[g->ap[j].src[s]] < 0)
					m->owner[g->ap[j].src[s]] = best;
		/* the stretch's applies now have a node (the first's) */
		for (int j = lo; j < hi; j++)
			if (g->ap[j].n_src > 0)
				m->node[j] = node_of(m, j);
	}
}

static int
cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return ((a > b) - (a < b));
}

/* Shallow copies of p's functions and applies, for a view. */
static void
view_init(struct gp_profile *v, const struct gp_profile *p)
{
	*v = *p;
	v->fn = gp_xcalloc((size_t)p->n_fn + 1, sizeof(*v->fn));
	for (int f = 0; f < p->n_fn; f++) {
		v->fn[f] = p->fn[f];
		v->fn[f].ap = gp_xcalloc((size_t)p->fn[f].n_apply + 1,
		    sizeof(*v->fn[f].ap));
		if (p->fn[f].n_apply > 0)	/* ap may be NULL else */
			memcpy(v->fn[f].ap, p->fn[f].ap,
			    sizeof(*v->fn[f].ap) * (size_t)p->fn[f].n_apply);
	}
}

static void
view_free(struct gp_profile *v)
{
	if (v->fn == NULL)
		return;
	for (int f = 0; f < v->n_fn; f++)
		free(v->fn[f].ap);
	free(v->fn);
}

/* The function of p named name, or -1. */
static int
fn_named(const struct gp_profile *p, const char *name)
{
	for (int f = 0; f < p->n_fn; f++)
		if (strcmp(p->fn[f].name, name) == 0)
			return (f);
	return (-1);
}

struct gp_diff_peer *
gp_diff_peer_new(const struct gp_profile *a, const struct gp_profile *b)
{
	const struct gp_profile *side[2] = {a, b};
	struct gp_diff_peer *pe;
	const struct gp_profile *po, *pg;
	struct map m = {0};
	int o;

	if (gp_ort_is(a) == gp_ort_is(b))
		return (NULL);
	o = gp_ort_is(a) ? 0 : 1;
	po = side[o];
	pg = side[1 - o];
	if (pg->n_src_names == 0 || po->n_fn != 1 ||
	    fn_named(pg, po->fn[0].name) < 0)
		return (NULL);
	pe = gp_xcalloc(1, sizeof(*pe));
	pe->ort = o;
	pe->fn_ort = 0;
	pe->fn_gp = fn_named(pg, po->fn[0].name);
	view_init(&pe->view[0], a);
	view_init(&pe->view[1], b);
	m.ort = &po->fn[0];
	m.gp = &pg->fn[pe->fn_gp];
	pe->fn = *m.ort;
	pe->fn.ap = gp_xcalloc((size_t)m.ort->n_apply + 1,
	    sizeof(*pe->fn.ap));
	memcpy(pe->fn.ap, m.ort->ap, sizeof(*pe->fn.ap) *
	    (size_t)m.ort->n_apply);
	for (int k = 0; k < pe->fn.n_apply; k++) {
		pe->fn.ap[k].src = NULL;
		pe->fn.ap[k].n_src = 0;
	}
	/* the names the nodes are looked up by */
	smap_init(&m.src, pg->n_src_names);
	for (int s = pg->n_src_names; s-- > 0;)
		if (pg->src_names[s] != NULL)
			smap_put(&m.src, pg->src_names[s], s);
	{
		int n_out = 0;

		for (int i = 0; i < m.gp->n_apply; i++)
			n_out += m.gp->ap[i].n_out;
		smap_init(&m.val, n_out);
		for (int i = m.gp->n_apply; i-- > 0;)
			for (int j = m.gp->ap[i].n_out; j-- > 0;)
				if (m.gp->ap[i].out[j].var != NULL)
					smap_put(&m.val,
					    m.gp->ap[i].out[j].var, i);
	}
	m.owner = gp_xmalloc(sizeof(int) * ((size_t)pg->n_src_names + 1));
	for (int s = 0; s < pg->n_src_names; s++)
		m.owner[s] = -1;
	m.src_names = pg->src_names;
	m.fusing = gp_xcalloc((size_t)pe->fn.n_apply + 1, sizeof(bool));
	m.fusion = gp_xcalloc((size_t)pe->fn.n_apply + 1, sizeof(*m.fusion));
	m.base = gp_xcalloc((size_t)pe->fn.n_apply + 1, sizeof(*m.base));
	m.base_len = gp_xcalloc((size_t)pe->fn.n_apply + 1,
	    sizeof(*m.base_len));
	for (int k = 0; k < pe->fn.n_apply; k++) {
		m.fusing[k] = fuses_more(&m.ort->ap[k]);
		claim_node(&m, &pe->fn.ap[k], k);
		if (pe->fn.ap[k].n_src > 0)
			pe->n_named++;
	}
	/* the data flow of the gptop function: each apply's consumers */
	m.node = gp_xmalloc(sizeof(int) * ((size_t)m.gp->n_apply + 1));
	m.n_use = gp_xcalloc((size_t)m.gp->n_apply + 1, sizeof(int));
	m.use = gp_xmalloc(sizeof(int) * ((size_t)m.gp->n_apply + 1));
	for (int i = 0; i < m.gp->n_apply; i++) {
		const struct gp_prof_apply *x = &m.gp->ap[i];

		m.node[i] = node_of(&m, i);
		for (int j = 0; j < x->n_in; j++) {
			int p = x->in_producer[j];
			bool seen = false;

			for (int q = 0; q < j; q++)
				seen |= x->in_producer[q] == p;
			if (p < 0 || seen)
				continue;
			m.n_use[p]++;
			m.use[p] = i;
		}
	}
	absorb(&m, pe->fn.ap);
	while (spread(&m, pe->fn.ap))
		;
	gemm_reshapes(&m, pe->fn.ap);
	align(&m, pe->fn.ap);
	for (int k = 0; k < pe->fn.n_apply; k++)
		if (pe->fn.ap[k].n_src > 1)	/* not qsort(NULL, 0) */
			qsort(pe->fn.ap[k].src, (size_t)pe->fn.ap[k].n_src,
			    sizeof(int), cmp_int);
	/* the Ops rows' names: ONNX op types */
	{
		struct gp_prof_fn *vo = &pe->view[o].fn[0];
		struct gp_prof_fn *vg = &pe->view[1 - o].fn[pe->fn_gp];

		pe->n_keys = (size_t)vo->n_apply + (size_t)vg->n_apply;
		pe->keys = gp_xcalloc(pe->n_keys + 1, sizeof(char *));
		for (int k = 0; k < vo->n_apply; k++)
			vo->ap[k].op = pe->keys[k] = ort_type(vo->ap[k].op);
		for (int i = 0; i < vg->n_apply; i++) {
			char *t = m.node[i] >= 0 ?
			    gp_xstrdup(vo->ap[m.node[i]].op) :
			    base_type(vg->ap[i].op);

			vg->ap[i].op = pe->keys[vo->n_apply + i] = t;
			/* and the node's Class (its ONNX family) */
			if (m.node[i] >= 0) {
				vg->ap[i].cls = vo->ap[m.node[i]].cls;
				pe->n_covered++;
			}
		}
		pe->n_gp = vg->n_apply;
	}
	free(m.owner);
	free(m.fusing);
	free(m.fusion);
	free(m.base);
	free(m.base_len);
	free(m.node);
	free(m.n_use);
	free(m.use);
	smap_free(&m.src);
	smap_free(&m.val);
	return (pe);
}

void
gp_diff_peer_free(struct gp_diff_peer *pe)
{
	if (pe == NULL)
		return;
	for (int k = 0; k < pe->fn.n_apply; k++)
		free(pe->fn.ap[k].src);
	free(pe->fn.ap);
	for (size_t i = 0; i < pe->n_keys; i++)
		free(pe->keys[i]);
	free(pe->keys);
	view_free(&pe->view[0]);
	view_free(&pe->view[1]);
	free(pe);
}

bool
gp_diff_peer_group(struct gp_diff *d, int f, struct gp_diff_pairs *p,
    int *ga, int *gb)
{
	const struct gp_diff_peer *pe = d->peer;
	const struct gp_diff_fn *df = &d->fn[f];
	struct gp_diff_pairs q = *p;

	if (pe == NULL)
		return (false);
	if (pe->ort == 0 ? df->fn_a != pe->fn_ort || df->fn_b != pe->fn_gp :
	    df->fn_b != pe->fn_ort || df->fn_a != pe->fn_gp)
		return (false);
	/* ORT's applies with the gptop side's sources; nothing paired but
	 * by them */
	if (pe->ort == 0)
		q.fa = &pe->fn;
	else
		q.fb = &pe->fn;
	gp_diff_group_sources(d, f, &q, ga, gb);
	return (true);
}

/*
 * jsonarena.h: bump arenas for jansson.  Parsing or building a large JSON
 * tree through malloc() costs more than the rest of a load or save, so a
 * thread may route its jansson allocations into an arena (one reservation
 * of address space, touched as it fills) and drop the whole tree at once.
 *
 * jansson's allocator hooks are process-wide: this module is the only
 * place that installs them (nobody else may call json_set_alloc_funcs).
 * Outside an arena, on any thread, they pass straight through to malloc()
 * and free(); a free of a pointer inside a live arena is a no-op.  Nothing
 * allocated in an arena may outlive it (deep-copy what must survive, after
 * gp_json_arena_leave).
 */
#ifndef GPTOP_SRC_JSONARENA_H
#define GPTOP_SRC_JSONARENA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct gp_json_arena {
	char	*base, *top, *end;
	int	 slot;
	bool	 spilled;	/* part of the tree went to malloc */
};

/* Reserve `reserve` bytes of address space and route this thread's jansson
 * allocations into it.  false: no arena (malloc is used; still call
 * gp_json_arena_end). */
bool	gp_json_arena_begin(struct gp_json_arena *a, size_t reserve);
/* Ask for huge pages for a's reservation: a tree of hundreds of MiB
 * faulted in 4 KiB pages costs a quarter of its parse.  Nothing when a
 * is no arena (gp_json_arena_begin said false). */
void	gp_json_arena_huge(struct gp_json_arena *a);
/* Stop routing this thread's allocations into the arena (the arena and
 * what is in it stay valid until gp_json_arena_end). */
void	gp_json_arena_leave(struct gp_json_arena *a);
/* Route this thread's allocations into a again. */
void	gp_json_arena_enter(struct gp_json_arena *a);
/* Start again at the bottom of the arena: every tree built in it must
 * have been json_decref'ed first (that frees what spilled to malloc). */
void	gp_json_arena_reset(struct gp_json_arena *a);
/* Drop the tree `root` (may be NULL) and the arena. */
void	gp_json_arena_end(struct gp_json_arena *a, json_t *root);

#endif

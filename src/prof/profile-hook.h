/*
 * profile-hook.h: the profile as the VM's timing hook (vm-hook.h).  Given
 * to gp_vm_new and gp_vm_call, the hook of a struct gp_profile fills the
 * profile's function and apply tables from the schedule at link time
 * (names, classes, flops, the types of inputs and outputs, alias marks),
 * gives each timed call its function's scratch array for the tick stamps
 * (sampling decides which calls are timed apply by apply), records the
 * strides the kernels made on a function's first call, and folds the
 * stamps into the counters after each call (gp_prof_fold).
 */
#ifndef GPTOP_SRC_PROFILE_HOOK_H
#define GPTOP_SRC_PROFILE_HOOK_H

#include "prof/profile.h"
#include "run/vm-hook.h"

/* p's hook (p outlives the VM's use of it). */
struct gp_vm_hook	gp_profile_hook(struct gp_profile *p);

#endif

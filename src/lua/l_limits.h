/*
 * l_limits.h - etinspect.limits: the process-wide work budgets
 * (docs/user-guide.md "Limits", docs/lua-api.md).
 */
#ifndef ET_L_LIMITS_H
#define ET_L_LIMITS_H

#include <lua.h>

/* etinspect.limits([opts]) -> {broadcast_elements = N}
 *
 * Returns the budgets in force, after setting those `opts` names:
 *   broadcast_elements  integer >= 1: the most elements a Tensor whose
 *                       zero strides repeat its bytes may have, and the
 *                       most element pairs a broadcast comparison
 *                       (calculate_numeric_gap, compare_results) may make
 *                       (tensor.h et_tensor_max_broadcast; default
 *                       1048576); `false` restores the default.
 * The budgets are process-wide: they apply to every Inspector, and to
 * views made after the call.  Raises the options contract's errors
 * ("etinspect.limits: unknown option 'x' (accepted: broadcast_elements)",
 * "... option 'broadcast_elements' must be a integer|boolean, got string")
 * and "etinspect.limits: broadcast_elements must be >= 1, got 0". */
int et_lua_limits(lua_State *L);

#endif

"""Native pieces of the numba kernels: scratch arrays on a kernel's stack (:func:`local_zeros`).

``np.zeros`` inside a numba kernel allocates on the heap through numba's runtime (NRT), and
a kernel that uses NRT also counts references of every array it is given (an atomic add on
entry and exit of each call, which LLVM cannot remove once the call is inlined into a loop).
The engine's hot functions are compiled without NRT (``@njit(cache=True, _nrt=False)``) and
take their few scratch arrays (a count per resource, say) from the stack instead:

>>> from numba import njit
>>> @njit(_nrt=False)
... def first_three(x):
...     t = local_zeros(3, np.int64)
...     for i in range(3):
...         t[i] = x[i] * 2
...     return t[0] + t[1] + t[2]
>>> first_three(np.arange(5))
6

``local_zeros(n, dtype)`` is ``np.zeros(n, dtype)`` with ``n`` a compile-time constant (an int
literal or a module constant); the memory lives until the function that asked for it returns,
so the array must not be returned or stored. Under ``NUMBA_DISABLE_JIT=1`` it is ``np.zeros``.

This module imports nothing from the package (kernel modules register against it).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

__all__ = ["local_zeros"]


@intrinsic
def _stack_zeros(typingctx, n, dtype):
    if not isinstance(n, types.IntegerLiteral) or not isinstance(dtype, types.NumberClass):
        return None  # numba retries with literal arguments; a size it cannot fold is a typing error
    count = int(n.literal_value)
    if count < 1:
        return None
    ety = dtype.instance_type
    arrty = types.Array(ety, 1, "C")

    def codegen(context, builder, sig, args):
        lty = context.get_data_type(ety)
        width = context.get_abi_sizeof(lty)
        intp = context.get_value_type(types.intp)
        ptr = cgutils.alloca_once(builder, lty, size=count)  # in the entry block: once per call, not per loop turn
        cgutils.memset(builder, ptr, ir.Constant(intp, count * width), 0)
        ary = make_array(arrty)(context, builder)
        populate_array(
            ary,
            data=ptr,
            shape=[ir.Constant(intp, count)],
            strides=[ir.Constant(intp, width)],
            itemsize=ir.Constant(intp, width),
            meminfo=None,
        )
        return ary._getvalue()

    return arrty(n, dtype), codegen


if config.DISABLE_JIT:

    def local_zeros(n: int, dtype: type) -> np.ndarray:
        """``np.zeros(n, dtype)`` (interpreted engine)."""
        return np.zeros(n, dtype)

else:
    local_zeros = _stack_zeros

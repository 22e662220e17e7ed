"""Kernels of the loop bodies (tinyflow/ops/loop.py): reading a loop's condition, keeping
the loop variables of an iteration for the backward pass, copying a loop variable whose
shape changes, and a dynamic_size TensorArray growing at indices found at run time."""
from __future__ import annotations

from ..array.kernels import gpu_checked

__all__ = ["gpu_checked", "grow", "keep", "kept_rows", "padded_rows", "resize_copy", "rows",
           "truth", "write_refused"]


def truth(x) -> bool:
    """The value of a bool scalar tensor, as a Lua boolean (one host sync on a GPU)."""
    return bool(x)


def keep(kept, x):
    """``kept`` (a tensor of x's shape and dtype, or nil) holding a copy of ``x``: reused when
    it fits, else a new tensor (the loop's stack for the backward grows to its longest run)."""
    if kept is None or kept.shape != x.shape or kept.dtype != x.dtype:
        return x.clone()
    return kept.copy_(x)


def resize_copy(res, x) -> None:
    """res = x, res resized to x's shape first: a tensor of its own (a loop variable whose
    shape changes, a run-time-shaped output), whose shape the body sets."""
    if res.shape != x.shape:  # new storage (numpy() of it made the old one fixed in size)
        res.set_(x.new_empty(x.shape))
    res.copy_(x)


def grow(res, count_out, elements, count, index, value, check_fits, in_place) -> None:
    """res = ``elements`` with rows ``index`` set to ``value``, its capacity at least doubled
    when an index lies past it (rows past ``count`` are zeros), the count of rows written into
    ``count_out``.  ``elements`` without rows yet (a loop's first value) may have any shape.
    ``in_place``: res may be ``elements`` itself (its storage) while the rows fit."""
    flat = index.reshape(-1).long()
    rows = value.reshape((flat.numel(),) + tuple(value.shape[index.dim():]))
    if flat.numel() and int(flat.min()) < 0:
        raise IndexError(f"TensorArray index {int(flat.min())} is negative")
    written = max(int(count), int(flat.max()) + 1 if flat.numel() else 0)
    element = tuple(rows.shape[1:])
    capacity = elements.shape[0] if elements.dim() and tuple(elements.shape[1:]) == element \
        else 0
    if elements.numel() and capacity == 0:
        raise ValueError(f"writing elements of shape {element} into a TensorArray of elements "
                         f"of shape {tuple(elements.shape[1:])}")
    if written > capacity:  # a new buffer, twice as large at least
        capacity = max(2 * capacity, written)
        check_fits(capacity * rows[:1].numel() * rows.element_size(), (capacity,) + element)
        grown = rows.new_zeros((capacity,) + element)
        grown[:elements.shape[0] if elements.numel() else 0].copy_(elements.reshape(
            (-1,) + element) if elements.numel() else grown[:0])
        res.set_(grown)
    elif in_place:
        res.set_(elements)
    elif res.data_ptr() != elements.data_ptr() or res.shape != elements.shape:
        resize_copy(res, elements)
    res.index_copy_(0, flat, rows)
    count_out.fill_(written)


def rows(res, elements, count, element) -> None:
    """res = the first ``count`` rows of ``elements`` (a TensorArray's stack); zeros of
    ``element`` shape (a Lua array, or nil when not known) for an array never written."""
    count, held = int(count), elements.shape[0] if elements.dim() else 0
    if count < 0:  # a document's (a slice would take all rows but the last -count)
        raise IndexError(f"TensorArray count {count} is negative")
    element = None if element is None else tuple(int(d) for d in element.values())
    if element is not None and tuple(elements.shape[1:]) != element:
        elements, held = elements.new_zeros((count,) + element), count
    if count > held:
        raise IndexError(f"TensorArray of {count} elements, {held} of them written: its "
                         f"element shape is unknown (write every element, or give "
                         f"element_shape)")
    resize_copy(res, elements[:count])


def kept_rows(res, g, index) -> None:
    """res = the first rows of ``g`` (res's count; none for elements without rows yet), those
    at ``index`` zero: what a TensorArray grown by a write kept gets of the gradient."""
    if res.numel() == 0:
        return
    held = res.shape[0]
    res.copy_(g[:held])
    flat = index.reshape(-1).long()
    res.index_fill_(0, flat[(flat >= 0) & (flat < held)], 0)  # a document's may be negative


def padded_rows(res, g) -> None:
    """res = ``g`` in its first rows, zeros after (the gradient of a TensorArray's stack)."""
    res.zero_()
    if res.numel():
        count = min(g.shape[0], res.shape[0])
        res[:count].copy_(g[:count])


def write_refused(index, elements, err) -> None:
    """Why a TensorArray's write failed: TensorFlow's error for an index outside an array that
    does not grow, else the error itself."""
    size = elements.shape[0] if elements.dim() else 0
    outside = [int(i) for i in index.reshape(-1) if not 0 <= int(i) < size]
    if outside:
        raise IndexError(f"Tried to write to index {outside[0]} but array is not resizeable "
                         f"and size is: {size}")
    raise RuntimeError(str(err))

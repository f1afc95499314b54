"""The order ``List<T>.Sort(IComparer)`` leaves items in under Windows PowerShell 5.1: .NET Framework's unstable sort.

Sort-Object sorts its entries with ``List<T>.Sort`` and the comparer of its -Property keys (PowerShell/PowerShell,
``Sort-Object.cs``: the full sort without -Stable/-Top/-Bottom; 5.1 has only that one). The .NET API reference says of
``List<T>.Sort``: "This implementation performs an unstable sort; that is, if two elements are equal, their order
might not be preserved." Which order .NET Framework 4.x leaves equal items in depends on the application's target
framework (``ArraySortHelper<T>.Sort`` of the Framework's mscorlib: the introspective sort when
``BinaryCompatibility.TargetsAtLeast_Desktop_V4_5``, else the depth-limited quicksort, depth 32); powershell.exe 5.1
takes the second: ``@(1..9) | Sort-Object {1}`` prints 7 6 9 8 5 2 1 4 3 under 5.1.19041 (PowerShell/PowerShell#20596),
which is that quicksort's order, and not the introspective sort's (an insertion sort below 17 items, which keeps
equal items in order). So two equal items come out swapped, and a script that sorts and takes the first of a tie gets
the last one it read.

The steps below follow that quicksort as its behaviour: the median of three at the middle, the two scans that stop
at items not less / not greater than the pivot and swap (equal items too), recursion into the smaller side, a heap
sort once the depth budget is spent.
"""

QUICKSORT_DEPTH = 32  # ArraySortHelper's QuickSortDepthThreshold


def framework_sort(items, compare):
    """``items`` (a list, sorted in place and returned) as .NET Framework's ``List<T>.Sort(comparer)`` orders them."""
    if len(items) > 1:
        _quicksort(items, 0, len(items) - 1, compare, QUICKSORT_DEPTH)
    return items


def _swap_if_greater(items, compare, left, right):
    if left != right and compare(items[left], items[right]) > 0:
        items[left], items[right] = items[right], items[left]


def _quicksort(items, left, right, compare, depth):  # pylint: disable=too-many-arguments
    while left < right:
        if depth == 0:
            _heapsort(items, left, right, compare)
            return
        low, high = left, right
        middle = low + ((high - low) >> 1)
        _swap_if_greater(items, compare, low, middle)
        _swap_if_greater(items, compare, low, high)
        _swap_if_greater(items, compare, middle, high)
        pivot = items[middle]
        while low <= high:
            while compare(items[low], pivot) < 0:
                low += 1
            while compare(pivot, items[high]) < 0:
                high -= 1
            if low > high:
                break
            if low < high:
                items[low], items[high] = items[high], items[low]
            low += 1
            high -= 1
        depth -= 1
        # The smaller side by recursion, the larger by the loop.
        if high - left <= right - low:
            if left < high:
                _quicksort(items, left, high, compare, depth)
            left = low
        else:
            if low < right:
                _quicksort(items, low, right, compare, depth)
            right = high


def _heapsort(items, low, high, compare):
    count = high - low + 1
    for index in range(count // 2, 0, -1):
        _sift_down(items, index, count, low, compare)
    for index in range(count, 1, -1):
        items[low], items[low + index - 1] = items[low + index - 1], items[low]
        _sift_down(items, 1, index - 1, low, compare)


def _sift_down(items, index, count, low, compare):
    value = items[low + index - 1]
    while index <= count // 2:
        child = 2 * index
        if child < count and compare(items[low + child - 1], items[low + child]) < 0:
            child += 1
        if not compare(value, items[low + child - 1]) < 0:
            break
        items[low + index - 1] = items[low + child - 1]
        index = child
    items[low + index - 1] = value

# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The type of an arithmetic or bitwise result, unsigned types included (issue 28)."""

from _case import Case

ARITH = 'about_Arithmetic_Operators (reference/5.1) "Type conversion to accommodate result"'
BIND = ('PowerShell/PowerShell engine/runtime/Binding/Binders.cs BinaryNumericOp, FigureSignedUnsignedInt, '
        'GetBitwiseOpType; engine/runtime/Operations/NumericOps.cs')

CASES = [
    Case('widen-int-minvalue-plus-uint-maxvalue', "([int32]::minvalue + [uint32]::maxvalue).GetType().FullName",
         ['System.Int64'], source=ARITH + ': the negative Int32 cannot be an unsigned integer, the UInt32 is too '
                                          'large for Int32, so the result is an Int64'),
    Case('widen-int-plus-uint-positive', "([int]1 + [uint32]1).GetType().FullName", ['System.UInt32'],
         source=BIND + ': a signed operand that is not negative joins a UInt32 operation'),
    Case('widen-negative-int-plus-uint', "$r = [int]-1 + [uint32]1; $r; $r.GetType().Name", ['0', 'Int64'],
         source=BIND + ': a negative signed operand makes the UInt32 operation an Int64 one'),
    Case('widen-uint-overflow-double', "([uint32]4000000000 + [uint32]4000000000).GetType().Name", ['Double'],
         source=BIND + ' (UIntOps.Add): a result beyond UInt32 is a Double'),
    Case('widen-uint-below-zero-double', "$r = [uint32]3 - [uint32]5; $r; $r.GetType().Name", ['-2', 'Double'],
         source=BIND + ' (UIntOps.Sub): a negative result is a Double'),
    Case('widen-small-types-int32', "([byte]200 + [byte]100).GetType().Name; [byte]200 + [byte]100; "
                                    "([int16]1 * [uint16]2).GetType().Name", ['Int32', '300', 'Int32'],
         source=BIND + ': operands below Int32 make an Int32 operation'),
    Case('widen-long-ulong', "([int64]1 + [uint64]1).GetType().Name; ([int64]-1 + [uint64]1).GetType().Name",
         ['UInt64', 'Decimal'], source=BIND + ': Int64 with UInt64 is unsigned unless negative, then Decimal'),
    Case('widen-decimal-wins-over-double', "(1.5 + 1d).GetType().Name; 1.5 + 1d", ['Decimal', '2.5'],
         source='about_Arithmetic_Operators (reference/5.1): "If either operand has the Decimal type, the result '
                'will be of the Decimal type"'),
    Case('widen-single-gives-double', "([single]1 + 1).GetType().Name", ['Double'],
         source=BIND + ': Single and Double operations are Double operations'),
    Case('widen-uint-division', "([uint32]6 / [uint32]3).GetType().Name; ([uint32]7 / [uint32]2).GetType().Name",
         ['UInt32', 'Double'], source=BIND + ' (UIntOps.Divide): exact in the type, else a Double'),
    Case('shift-left-wraps-int32', "1 -shl 31; (1 -shl 31).GetType().Name; 1 -shl 33",
         ['-2147483648', 'Int32', '2'],
         source='about_Arithmetic_Operators (reference/5.1) bitwise operators, with ' + BIND + ': an Int32 shift '
                'keeps 32 bits and its count is taken modulo 32 as in C#'),
    Case('shift-right-arithmetic', "102 -shr 1; -8 -shr 1", ['51', '-4'],
         source='about_Arithmetic_Operators (reference/5.1): 102 -shr 1 is 51; a signed shift keeps the sign'),
    Case('band-uint-type', "(5 -band [uint32]3).GetType().Name; [int64]1 -shl 63",
         ['UInt32', '-9223372036854775808'], source=BIND + ': GetBitwiseOpType takes the wider operand\'s type'),
]

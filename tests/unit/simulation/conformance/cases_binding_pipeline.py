# Copyright: (c) 2026, kubewin.node contributors
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Binding piped objects to a function's parameters: ValueFromPipeline, ValueFromPipelineByPropertyName (issue 28)."""

from _case import Case

ADV = 'about_Functions_Advanced_Parameters (reference/5.1)'
FUN = 'about_Functions (reference/5.1)'
SRC = ('PowerShell/PowerShell src/System.Management.Automation/engine/CmdletParameterBinderController.cs '
       'BindPipelineParameters, ParameterBinderStrings InputObjectNotBound')

CASES = [
    Case('vfp-no-process-block-holds-last',
         "function f { param([Parameter(ValueFromPipeline)]$x) \"got $x\" }; 1, 2, 3 | f", ['got 3'],
         source=FUN + ': a function without a process block runs its body as the end block, once all input arrived; '
                      + ADV + ' ValueFromPipeline: each object is bound in turn, so the last one stays'),
    Case('vfp-begin-end-only-holds-last',
         "function f { param([Parameter(ValueFromPipeline)][int]$x) begin { \"b$x\" } end { \"e$x\" } }; 5, 6 | f",
         ['b0', 'e6'], source=FUN + ': begin runs before any object is bound, end after the last one'),
    Case('vfp-mandatory-from-pipeline',
         "function f { param([Parameter(Mandatory, ValueFromPipeline)]$x) process { $x * 2 } }; 1, 2 | f", ['2', '4'],
         source=ADV + ': a mandatory parameter that takes pipeline input is bound from each object'),
    Case('vfpbpn-binds-property',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$Name) process { \"n=$Name\" } }; "
         "[pscustomobject]@{ Name = 'a' }, [pscustomobject]@{ Name = 'b' } | f", ['n=a', 'n=b'],
         source=ADV + ' ValueFromPipelineByPropertyName: the value of the property of the same name'),
    Case('vfpbpn-binds-alias',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)][Alias('ComputerName')]$Server) "
         "process { $Server } }; [pscustomobject]@{ ComputerName = 'srv1' } | f", ['srv1'],
         source=ADV + ' ValueFromPipelineByPropertyName: "the pipeline object must have a property with the same name '
                      'or alias as the parameter"'),
    Case('vfpbpn-converts-type',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)][int]$Count) process { $Count.GetType().Name } }; "
         "[pscustomobject]@{ Count = '7' } | f", ['Int32'],
         source=ADV + ': the bound value is converted to the parameter type'),
    Case('vfpbpn-several-from-one-object',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$A, "
         "[Parameter(ValueFromPipelineByPropertyName)]$B) process { \"$A$B\" } }; [pscustomobject]@{ A = 1; B = 2 } | f",
         ['12'], source=ADV + ': every parameter taking the pipeline by property name binds its own property'),
    Case('vfpbpn-reset-between-objects',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$A, "
         "[Parameter(ValueFromPipelineByPropertyName)]$B) process { \"[$A|$B]\" } }; "
         "[pscustomobject]@{ A = 1; B = 2 }, [pscustomobject]@{ A = 3 } | f", ['[1|2]', '[3|]'],
         source=SRC + ': parameters bound from one object are restored to their default before the next'),
    Case('vfpbpn-no-property-object-error',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$Name) process { \"n=$Name\" } }; "
         "[pscustomobject]@{ Other = 1 }, [pscustomobject]@{ Name = 'x' } | f", ['n=x'],
         errors=['The input object cannot be bound to any parameters for the command'],
         source=SRC + ': an object that binds nothing is an error of that object; the next one binds'),
    Case('vfpbpn-hashtable-keys-are-not-properties',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$Name) process { \"n=$Name\" } }; "
         "@{ Name = 'x' } | f; 'after'", ['after'],
         errors=['The input object cannot be bound to any parameters for the command'],
         source=ADV + ': by property name needs a property; a hashtable\'s keys are not its properties ('
                      'about_Hash_Tables: [pscustomobject] makes properties of them)'),
    Case('vfpbpn-binds-a-dotnet-property',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$Length) process { $Length } }; 'abc' | f",
         ['3'], source=SRC + ': the object\'s properties are its PSObject\'s, a .NET type\'s adapted ones included '
                             '(String.Length, .NET API reference)'),
    Case('vfpbpn-binds-a-dictionary-own-property',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$Count) process { $Count } }; "
         "@{ a = 1; b = 2 } | f", ['2'],
         source=SRC + ': a hashtable\'s own properties are properties (Hashtable.Count, .NET API reference), its keys '
                      'are not'),
    Case('vfpbpn-refuses-an-unmodelled-property',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)]$IsReadOnly) process { $IsReadOnly } }; "
         "try { @{ a = 1 } | f } catch { 'caught' }", [], exit_code=2, unsupported='IsReadOnly',
         source=SRC + ': Hashtable.IsReadOnly exists (.NET API reference) and the engine does not model it, so the '
                      'binding is refused, not skipped'),
    Case('advanced-without-pipeline-parameter-refuses-input',
         "function f { [CmdletBinding()] param() process { \"got $_\" } }; 1 | f; 'after'", ['after'],
         errors=['The input object cannot be bound to any parameters for the command either because the command '
                 'does not take pipeline input'],
         source=SRC + ': an advanced function binds piped objects to parameters only'),
    Case('vfp-and-vfpbpn-together',
         "function f { param([Parameter(ValueFromPipelineByPropertyName)][Alias('N')]$Name, "
         "[Parameter(ValueFromPipeline)][int]$V) process { \"$Name/$V\" } }; [pscustomobject]@{ N = 'a' }, 5 | f",
         ['a/0', '/5'], source=SRC + ': by value when the object converts to the parameter type, by property name '
         'when it has the property'),
    Case('vfp-psboundparameters-per-object',
         "function f { param([Parameter(ValueFromPipeline)]$x) process { $PSBoundParameters['x'] } }; 'p', 'q' | f",
         ['p', 'q'], source='about_Automatic_Variables $PSBoundParameters (reference/5.1): the parameters bound, '
                            'pipeline ones included'),
]

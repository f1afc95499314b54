"""Running a pipeline as Windows PowerShell 5.1 does: one object at a time.

about_Pipelines (reference/5.1): "the objects are sent down the pipeline one at a time"; a command's begin block
runs before any object is processed, in pipeline order, its process block once per object it receives, its end
block after the command before it has ended (about_Functions, "Piping Objects to Functions";
about_Functions_Advanced_Methods). So what a command wrote before a later one fails has already reached the next
command, and the output of the statement: `try { 1..5 | % { $_; if ($_ -eq 2) { throw 'x' } } } catch {}` writes
1 and 2.

Each command of a running pipeline is a ``Stage``. A stage hands what it writes to ``emit``, which is the next
stage's ``process`` (the last stage's is the statement's output). ``Select-Object -First`` stops the commands
before it once it has its objects (StopUpstreamCommandsException in PowerShell's SelectObjectCommand since 3.0):
``StopUpstream``, after which the commands after it end normally.

A cmdlet of the Windows model is a Python function that takes its piped objects together, as a list (``collects``):
it runs when the command before it has ended. Where that differs from 5.1 (a cmdlet whose ProcessRecord would have
handled the objects it got before the pipeline failed) the engine cannot tell what Windows would have done, so a
pipeline that fails while such a stage holds objects is Unsupported.
"""

from .values import Unsupported


class StopUpstream(Exception):
    """Raised by a stage that needs no more input: the stages before it stop, the ones after it end."""

    def __init__(self, stage):
        super().__init__('stop upstream')
        self.stage = stage


class Stage:
    """One command of a running pipeline. ``emit`` writes an object to the next command (set by run_pipeline)."""

    #: True when the stage takes its piped objects together when the command before it ends (a cmdlet function).
    collects = False
    #: True when collecting is what Windows PowerShell itself does (an end-block cmdlet such as Sort-Object).
    collects_in_windows = False

    def __init__(self):
        self.emit = None
        self.received = 0

    def begin(self):
        """Before any object: a function's begin block; binding that fails ends the pipeline before it runs."""

    def process(self, item):
        """One object from the command before."""
        raise NotImplementedError

    def process_first(self):
        """The first command of a pipeline: its process block once, with no input."""
        raise NotImplementedError

    def end(self):
        """After the command before has ended."""

    def holds_input(self):
        return self.collects and not self.collects_in_windows and self.received > 0


class StageOutput:
    """A stage's output as the list-like ``out`` the evaluator writes to: each object goes on at once."""

    __slots__ = ('stage',)

    def __init__(self, stage):
        self.stage = stage

    def append(self, item):
        self.stage.emit(item)

    def extend(self, items):
        for item in items:
            self.stage.emit(item)


class ValuesStage(Stage):
    """An expression at the head of a pipeline: its value, unrolled, one object at a time."""

    def __init__(self, items):
        super().__init__()
        self.items = items

    def process(self, item):
        raise Unsupported('an expression after the first element of a pipeline')

    def process_first(self):
        for item in self.items:
            self.emit(item)


def run_pipeline(stages, out):
    """Run ``stages`` (each built: arguments read and bound), the last writing to ``out`` (anything with append)."""
    try:
        _begin(stages, out)
        stages[0].process_first()
        for stage in stages:
            stage.end()
    except StopUpstream as stop:
        if stop.stage not in stages:
            raise
        for stage in stages[stages.index(stop.stage) + 1:]:
            stage.end()
    except Unsupported:
        raise
    except Exception as failure:
        held = [stage for stage in stages if stage.holds_input()]
        if held:
            raise Unsupported('a pipeline that ended (%s) while %s held piped objects: a cmdlet of the Windows model '
                              'takes its input when the command before it ends, so what its ProcessRecord would have '
                              'done with them on Windows is not modelled' % (type(failure).__name__, held[0])) from None
        raise
    return out


def _begin(stages, out):
    """Every begin block, in pipeline order. What a begin block writes waits until the next command has begun."""
    held = []
    for index, stage in enumerate(stages):
        own = []
        stage.emit = own.append
        stage.begin()
        if index:
            stages[index - 1].emit = stage.process
            for item in held:
                stage.process(item)
        held = own
    stages[-1].emit = out.append
    for item in held:
        out.append(item)

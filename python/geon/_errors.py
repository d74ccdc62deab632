"""geon's exceptions: GeonError (with the C ABI's GeonErrorCode in .code) and its subclasses,
named and meant as onnxruntime's (Fail, InvalidArgument, NoSuchFile, ...), so that code written
for onnxruntime catches the same class for the same situation. Which class a failure raises
depends on the code and on what was being done (creating a session or running one).
"""

# GeonErrorCode
OK = 0
INVALID_ARGUMENT = 1
INVALID_MODEL = 2
UNSUPPORTED = 3
NOT_FOUND = 4
RESOURCE_EXHAUSTED = 5
INTERNAL = 6
VERSION_MISMATCH = 7

CODE_NAMES = {
    OK: "OK",
    INVALID_ARGUMENT: "INVALID_ARGUMENT",
    INVALID_MODEL: "INVALID_MODEL",
    UNSUPPORTED: "UNSUPPORTED",
    NOT_FOUND: "NOT_FOUND",
    RESOURCE_EXHAUSTED: "RESOURCE_EXHAUSTED",
    INTERNAL: "INTERNAL",
    VERSION_MISMATCH: "VERSION_MISMATCH",
}

# What a failing call was doing: the same code means different things while a model is read.
CALL = "call"
CREATE = "create"
RUN = "run"


class GeonError(Exception):
    """A failed geon call: .code is the GeonErrorCode number, .code_name its name, str() the
    provider's message (which names the node, op, input and reason where there is one).
    GeonError(message, code) itself makes the subclass that code stands for."""

    _default_code = INTERNAL

    def __new__(cls, message="", code=None, *args, **kwargs):
        if cls is GeonError:
            cls = error_class(code if code is not None else INTERNAL, CALL, message)
        return super().__new__(cls, message)

    def __init__(self, message="", code=None):
        super().__init__(message)
        self.code = code if code is not None else type(self)._default_code
        self.code_name = CODE_NAMES.get(self.code, "code %d" % self.code)
        self.message = message

    def __reduce__(self):
        return (type(self), (self.message, self.code))


class Fail(GeonError):
    """A failure with no more specific class (onnxruntime's FAIL)."""


class InvalidArgument(GeonError):
    """A bad argument: an unknown input or output name, a wrong shape or element type, a bad
    option value."""

    _default_code = INVALID_ARGUMENT


class NoSuchFile(GeonError):
    """The model file (or a file it refers to) does not exist."""

    _default_code = NOT_FOUND


class NoModel(GeonError):
    """No model: the session is closed."""

    _default_code = INVALID_ARGUMENT


class EngineError(GeonError):
    """The engine failed."""


class RuntimeException(GeonError):
    """A run failed inside the engine (a kernel, memory, an internal error)."""


class InvalidProtobuf(GeonError):
    """The bytes do not parse as an ONNX ModelProto."""

    _default_code = INVALID_MODEL


class ModelLoaded(GeonError):
    """The model is already loaded (kept for onnxruntime compatibility; geon never raises it)."""


class NotImplemented(GeonError):  # noqa: A001 - onnxruntime's name, shadowing the builtin here only
    """Well-formed but not supported by geon: an op, element type or option."""

    _default_code = UNSUPPORTED


class InvalidGraph(GeonError):
    """The model's graph is malformed."""

    _default_code = INVALID_MODEL


class EPFail(GeonError):
    """The provider itself failed: libgeon_provider.so cannot be found or loaded, or its C API
    version does not match."""

    _default_code = VERSION_MISMATCH


CLASSES = (
    Fail,
    InvalidArgument,
    NoSuchFile,
    NoModel,
    EngineError,
    RuntimeException,
    InvalidProtobuf,
    ModelLoaded,
    NotImplemented,
    InvalidGraph,
    EPFail,
)

_BY_CODE = {
    INVALID_ARGUMENT: InvalidArgument,
    INVALID_MODEL: InvalidGraph,
    UNSUPPORTED: NotImplemented,
    NOT_FOUND: InvalidArgument,  # a name that does not exist (files: see error_class)
    RESOURCE_EXHAUSTED: RuntimeException,
    INTERNAL: RuntimeException,
    VERSION_MISMATCH: EPFail,
}


def error_class(code, stage=CALL, message=""):
    """The exception class for a GeonErrorCode raised while doing `stage`."""
    if stage == CREATE:
        if code == NOT_FOUND:
            return NoSuchFile
        if code in (INVALID_MODEL, INVALID_ARGUMENT) and "do not parse as a ModelProto" in message:
            return InvalidProtobuf
        if code in (RESOURCE_EXHAUSTED, INTERNAL):
            return Fail
    return _BY_CODE.get(code, Fail)


def make(message, code, stage=CALL):
    """The exception for a failure with this message and code while doing `stage`."""
    return error_class(code, stage, message)(message, code)

"""TFLite's flatbuffer schema, from the ``tflite-micro`` package (the ``tflm`` extra).

The schema classes come from tflite-micro's own generated module, the one its
interpreter and tools read models with; nothing here parses bytes by hand.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any

from tilefit.model.errors import InputError

# bytes 4-7 of a finished .tflite flatbuffer (schema.fbs's file_identifier)
IDENTIFIER = b"TFL3"
EXTRA = "pip install 'tilefit[tflm]'"


def schema() -> ModuleType:
    """tflite-micro's generated schema module; InputError when the extra is missing."""
    try:
        return import_module("tflite_micro.tensorflow.lite.micro.python.schema_py_generated")
    except ImportError:
        raise InputError(
            "", f"TFLM models need tflite-micro, which is not installed: {EXTRA}"
        ) from None


def unpack(data: bytes, where: str) -> Any:
    """The model as tflite's object API (``ModelT``); InputError when it is not one."""
    if len(data) < 8 or data[4:8] != IDENTIFIER:
        raise InputError(
            "", "not a TFLite flatbuffer: it has no TFL3 identifier at bytes 4-7", where
        )
    fb = schema()
    try:
        root = fb.Model.GetRootAs(data, 0)
        model = fb.ModelT.InitFromObj(root)
    except Exception as error:  # the generated reader raises whatever a bad offset causes
        raise InputError(
            "", f"a broken or truncated TFLite flatbuffer: reading it failed ({error})", where
        ) from None
    if not model.subgraphs:
        raise InputError("", "a TFLite model without a subgraph", where)
    return model


def builtin_names() -> dict[int, str]:
    """BuiltinOperator code -> its name (``CONV_2D``)."""
    ops = schema().BuiltinOperator
    return {value: name for name, value in vars(ops).items() if not name.startswith("_")}


def type_names() -> dict[int, str]:
    """TensorType code -> its name (``INT8``)."""
    types = schema().TensorType
    return {value: name for name, value in vars(types).items() if not name.startswith("_")}

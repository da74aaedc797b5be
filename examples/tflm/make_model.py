"""Make examples/tflm/streaming.tflite: a small float32 TFLM model of tilefit's own.

    python examples/tflm/make_model.py

Fourteen operators (fully connected, add, mul, tanh, logistic) whose
tensors live for interleaved spans, as in a network with skip connections;
seeded random weights (``tilefit.generate.tflm.streaming_model``, seed 7).
TFLM's greedy planner gives its arena a head of 1,280 B where 1,024 B is
enough. Needs the ``tflm`` extra.
"""

from pathlib import Path

from tilefit.generate.tflm import streaming_model

if __name__ == "__main__":
    target = Path(__file__).with_name("streaming.tflite")
    target.write_bytes(streaming_model(7, operators=14))
    print(target)

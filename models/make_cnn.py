#!/usr/bin/python3
"""Writes models/cnn.onnx: the small seeded CNN of the run command (a ResNet-ish network on
[batch, 3, 64, 64] images, models/export/nets.py's TinyResNet), exported at opset 17.

Needs Debian's python3 with python3-torch (scripts/setup.sh --with-torch):
    /usr/bin/python3 models/make_cnn.py [OUT]
"""

import os
import sys
import warnings

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "export"))
import export_models  # noqa: E402
import nets  # noqa: E402

SEED = 20240601


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "cnn.onnx")
    warnings.simplefilter("ignore")  # the tracer's notes on shape inference
    torch.manual_seed(SEED)
    model = export_models.randomize_batch_norm_stats(nets.TinyResNet()).eval()
    x = torch.rand(1, 3, 64, 64)
    with torch.no_grad():
        torch.onnx.export(model, (x,), out, opset_version=export_models.OPSET, input_names=["image"],
                          output_names=["logits"],
                          dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
                          do_constant_folding=True)
    print("wrote %s (%d bytes)" % (out, os.path.getsize(out)))


if __name__ == "__main__":
    main()

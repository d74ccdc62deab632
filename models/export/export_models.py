#!/usr/bin/python3
"""Exports the model suite to ONNX (opset 17) with seeded random weights, nothing downloaded:
one function per model returning (module, named example inputs, output names). Runs on Debian's
python3 with python3-torch and python3-torchvision (scripts/setup.sh --with-torch).

usage: export_models.py [--out DIR] [--list] [NAME ...]
Writes DIR/NAME.onnx and DIR/NAME.npz (the example inputs, by input name) for each NAME (all
models when none is given); DIR defaults to $GEON_MODEL_CACHE or build/models. A model whose
export fails is reported and the others still export; the exit status is then 1.
"""

import argparse
import inspect
import os
import sys
import time
import traceback
import warnings

import numpy as np
import torch
import torchvision
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nets  # noqa: E402

OPSET = 17
SEED = 20240601
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def randomize_batch_norm_stats(module):
    """Fresh BatchNorm layers have mean 0, variance 1, scale 1 and shift 0: an identity in eval
    mode that would hide a wrong normalization kernel. Give them seeded, plausible values."""
    for m in module.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            with torch.no_grad():
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return module


def image(*shape):
    return torch.rand(*shape) * 2.0 - 1.0


def vision(model, *shape):
    return randomize_batch_norm_stats(model), {"input": image(*shape)}, ["output"]


# --- classification CNNs, several generations ------------------------------------------------


def alexnet_small():
    return vision(nets.AlexNetSmall(), 1, 3, 128, 128)


def vgg_small():
    return vision(nets.VggSmall(), 1, 3, 64, 64)


def resnet18():
    return vision(torchvision.models.resnet18(weights=None), 1, 3, 112, 112)


def resnet50():
    return vision(torchvision.models.resnet50(weights=None), 1, 3, 224, 224)


def mobilenet_v2():
    return vision(torchvision.models.mobilenet_v2(weights=None), 1, 3, 224, 224)


def mobilenet_v3_small():
    return vision(torchvision.models.mobilenet_v3_small(weights=None), 1, 3, 128, 128)


def efficientnet_b0():
    return vision(torchvision.models.efficientnet_b0(weights=None), 1, 3, 128, 128)


def densenet121():
    return vision(torchvision.models.densenet121(weights=None), 1, 3, 64, 64)


def squeezenet1_1():
    return vision(torchvision.models.squeezenet1_1(weights=None), 1, 3, 128, 128)


def shufflenet_v2():
    return vision(torchvision.models.shufflenet_v2_x0_5(weights=None), 1, 3, 128, 128)


# --- segmentation, video -----------------------------------------------------------------------


class Outputs(nn.Module):
    """Picks one entry of a model that returns a dict (torchvision's segmentation models)."""

    def __init__(self, model, key):
        super().__init__()
        self.model, self.key = model, key

    def forward(self, x):
        return self.model(x)[self.key]


def lraspp_mobilenet_v3():
    model = torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=5)
    return randomize_batch_norm_stats(Outputs(model, "out")), {"input": image(1, 3, 128, 128)}, ["output"]


def r3d_18():
    # A clip of 8 frames of 64x64: [batch, channels, time, height, width].
    return vision(torchvision.models.video.r3d_18(weights=None, num_classes=10), 1, 3, 8, 64, 64)


# --- sequence and attention models ---------------------------------------------------------------


def lstm_tagger():
    tokens = torch.randint(0, 1000, (2, 24), dtype=torch.int64)
    return nets.LstmTagger(), {"tokens": tokens}, ["tag_scores"]


def bert_base():
    ids = torch.randint(0, 30522, (1, 128), dtype=torch.int64)
    mask = torch.ones(1, 128, dtype=torch.int64)
    mask[:, 100:] = 0  # padding at the end, so the mask reaches the softmax
    return nets.BertEncoder(), {"input_ids": ids, "attention_mask": mask}, ["last_hidden_state", "pooled"]


def gpt_decoder():
    ids = torch.randint(0, 2048, (1, 64), dtype=torch.int64)
    return nets.GptDecoder(), {"input_ids": ids}, ["logits"]


def vit_small():
    # vit_b_16's architecture (patch conv, class token, pre-norm encoder blocks with
    # nn.MultiheadAttention) at a small size: 64x64 images, 8x8 patches, 4 layers of width 192.
    model = torchvision.models.vision_transformer.VisionTransformer(
        image_size=64, patch_size=8, num_layers=4, num_heads=3, hidden_dim=192, mlp_dim=768, num_classes=10)
    # torchvision starts the classifier head at zero, which would make every output 0.
    nn.init.normal_(model.heads.head.weight, std=0.2)
    nn.init.normal_(model.heads.head.bias, std=0.1)
    return model, {"input": image(1, 3, 64, 64)}, ["output"]


def swin_t():
    # Windowed attention with shifted windows and relative position bias; 112x112 makes the
    # last stage 4x4, padded up to one 7x7 window.
    return vision(torchvision.models.swin_t(weights=None, num_classes=10), 1, 3, 112, 112)


MODELS = {f.__name__: f for f in [
    alexnet_small, vgg_small, resnet18, resnet50, mobilenet_v2, mobilenet_v3_small, efficientnet_b0,
    densenet121, squeezenet1_1, shufflenet_v2, lraspp_mobilenet_v3, r3d_18, lstm_tagger, bert_base,
    gpt_decoder, vit_small, swin_t,
]}


def export(name, out_dir):
    torch.manual_seed(SEED)
    module, inputs, output_names = MODELS[name]()
    module.eval()
    names = list(inputs)
    kwargs = {}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    onnx_path = os.path.join(out_dir, name + ".onnx")
    # Written under temporary names and renamed last, so that an interrupted export leaves no
    # model in the cache.
    with torch.no_grad():
        torch.onnx.export(module, tuple(inputs[n] for n in names), onnx_path + ".tmp", opset_version=OPSET,
                          input_names=names, output_names=output_names, do_constant_folding=True, **kwargs)
    with open(os.path.join(out_dir, name + ".npz.tmp"), "wb") as f:
        np.savez(f, **{n: inputs[n].numpy() for n in names})
    os.replace(os.path.join(out_dir, name + ".npz.tmp"), os.path.join(out_dir, name + ".npz"))
    os.replace(onnx_path + ".tmp", onnx_path)
    return onnx_path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_out = os.environ.get("GEON_MODEL_CACHE", os.path.join(REPO, "build", "models"))
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--list", action="store_true", help="print the model names and exit")
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return 0
    unknown = [n for n in args.names if n not in MODELS]
    if unknown:
        parser.error("unknown model(s): %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    # The tracer's warnings about constant folding and shape inference say nothing about the
    # exported model's correctness, which the model test checks.
    warnings.simplefilter("ignore")
    failed = []
    for name in args.names or list(MODELS):
        start = time.time()
        try:
            path = export(name, args.out)
            print("exported %s (%.1f MB, %.1f s)" % (path, os.path.getsize(path) / 1e6, time.time() - start),
                  flush=True)
        except Exception:
            failed.append(name)
            print("export of %s failed:\n%s" % (name, traceback.format_exc()), file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

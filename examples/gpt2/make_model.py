#!/usr/bin/env python3
"""Writes the GPT-2 example's model beside this script: a tiny Hugging Face `GPT2LMHeadModel` with
GPT-2's whole vocabulary (50257 tokens, so GPT-2's own BPE spells its text) and random weights from
a fixed seed, exported by optimum as its merged decoder (the decoder with a past, `optimum-cli export
onnx --task text-generation-with-past --opset 17`, and the one without a past that returns the
presents, joined by optimum's merge_decoders under one If on use_cache_branch, the weights stored
once), then split by `loam split` into gpt2_tiny.onnxtext (the graph) and gpt2_tiny.safetensors (its
weights); and expected.json, onnxruntime's greedy continuation of a prompt (the prompt in one pass
through the branch without a past, then one token a step through the branch with one, feeding back
the presents), which the example must reproduce.

    /tmp/torchvenv/bin/python examples/gpt2/make_model.py build/default/tools/loam/loam   # needs torch, transformers, optimum-onnx, onnxruntime
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from optimum.exporters.onnx import export as onnx_export
from optimum.exporters.onnx.model_configs import GPT2OnnxConfig
from optimum.onnx.graph_transformations import merge_decoders
from transformers import GPT2Config, GPT2LMHeadModel

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LAYERS, HEADS, HEAD_DIM = 2, 2, 4
PROMPT = "The quick brown fox"
STEPS = 12


def main():
    loam = sys.argv[1]
    work = tempfile.mkdtemp()
    torch.manual_seed(0)
    # Weights drawn wider than training starts them (initializer_range 1, not 0.02), so the greedy
    # pick depends on the context rather than repeating one token.
    config = GPT2Config(n_layer=LAYERS, n_embd=HEADS * HEAD_DIM, n_head=HEADS, n_positions=64, resid_pdrop=0.0, embd_pdrop=0.0,
                        attn_pdrop=0.0, initializer_range=1.0)
    GPT2LMHeadModel(config).eval().save_pretrained(os.path.join(work, "tiny"))
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "optimum-cli"), "export", "onnx", "-m", os.path.join(work, "tiny"),
                    "--task", "text-generation-with-past", "--opset", "17", os.path.join(work, "onnx")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The decoder without a past that returns the presents (optimum's GPT2OnnxConfig with use_past
    # and not use_past_in_inputs), merged with the one with a past.
    model = GPT2LMHeadModel.from_pretrained(os.path.join(work, "tiny")).eval()
    without_past = os.path.join(work, "without_past.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        onnx_export(model, GPT2OnnxConfig(model.config, task="text-generation", use_past=True, use_past_in_inputs=False),
                    Path(without_past), opset=17)
    model_named = os.path.join(work, "gpt2_tiny.onnx")
    merge_decoders(without_past, os.path.join(work, "onnx", "model.onnx"), save_path=model_named)
    subprocess.run([loam, "split", model_named, "-o", HERE], check=True, stdout=subprocess.DEVNULL)

    ids = [int(x) for x in subprocess.run([loam, "tokenize", "--bpe", os.path.join(ROOT, "data/tokenizers/gpt2/encoder.json"),
                                           os.path.join(ROOT, "data/tokenizers/gpt2/vocab.bpe")],
                                          input=PROMPT.encode(), capture_output=True, check=True).stdout.split()]
    session = ort.InferenceSession(model_named, providers=["CPUExecutionProvider"])
    # The prompt's past is unread (the branch without a past runs); optimum's runtime passes length 1.
    past = {f"past_key_values.{l}.{k}": np.zeros((1, HEADS, 1, HEAD_DIM), np.float32) for l in range(LAYERS) for k in ("key", "value")}
    step_ids, seen, continuation = ids, 0, []
    names = [o.name for o in session.get_outputs()]
    for _ in range(STEPS):
        feeds = {"input_ids": np.array([step_ids], np.int64), "attention_mask": np.ones((1, seen + len(step_ids)), np.int64),
                 "position_ids": np.arange(seen, seen + len(step_ids), dtype=np.int64)[None, :],
                 "use_cache_branch": np.array([seen > 0]), **past}
        out = dict(zip(names, session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})))
        seen += len(step_ids)
        past = {k.replace("present", "past_key_values"): v for k, v in out.items() if k.startswith("present")}
        token = int(out["logits"][0, -1].argmax())
        continuation.append(token)
        step_ids = [token]
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump({"prompt": PROMPT, "prompt_ids": ids, "greedy": continuation,
                   "generator": {"onnxruntime": ort.__version__, "torch": torch.__version__}}, f, indent=1)
        f.write("\n")
    print("prompt ids", ids, "greedy", continuation)


if __name__ == "__main__":
    main()

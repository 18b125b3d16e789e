# lit configuration for the tests that check what `loam build` prints after a stage: each test file
# is a model (.onnxtext), or RUN lines on one kept elsewhere (.test), whose RUN lines build it and pipe a stage's printed form to FileCheck,
# which matches it against the CHECK lines beside the graph.
import os

import lit.formats

config.name = "loam-filecheck"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".onnxtext", ".test"]  # .test: RUN lines on a model kept elsewhere
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = lit_config.params.get("exec_root", config.test_source_root)

loam = lit_config.params["loam"]
filecheck = lit_config.params["filecheck"]
config.substitutions.append(("%loam", loam))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%source", os.path.dirname(os.path.dirname(config.test_source_root))))
config.environment["PATH"] = os.pathsep.join([os.path.dirname(filecheck), config.environment.get("PATH", "/usr/bin:/bin")])

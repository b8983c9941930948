"""Reference values for pg_dof's semantic-chunking thresholds (dof_core/src/chunk/breakpoints.rs),
computed the way LangChain's SemanticChunker computes them (langchain_experimental.text_splitter:
_calculate_breakpoint_threshold), with numpy. Run: python3 bench/reference/semantic_thresholds.py
(numpy from /var/cache/pg_dof/venv)."""
import numpy as np

d = np.array([0.1, 0.5, 0.2, 0.9, 0.3, 0.05, 0.6])
p75 = np.percentile(d, 75)
sd = np.mean(d) + 1.0 * np.std(d)
q1, q3 = np.percentile(d, [25, 75])
iqr = np.mean(d) + 1.5 * (q3 - q1)
g = np.gradient(d, range(0, len(d)))
g95 = np.percentile(g, 95)
print(f"percentile 75: {p75!r}  breakpoints {[i for i, x in enumerate(d) if x > p75]}")
print(f"standard_deviation 1: {sd!r}  breakpoints {[i for i, x in enumerate(d) if x > sd]}")
print(f"interquartile 1.5: {iqr!r}  breakpoints {[i for i, x in enumerate(d) if x > iqr]}")
iqr1 = np.mean(d) + 1.0 * (q3 - q1)
print(f"interquartile 1.0: {iqr1!r}  breakpoints {[i for i, x in enumerate(d) if x > iqr1]}")
print(f"gradient {g.tolist()!r}, 95th percentile {g95!r}  breakpoints {[i for i, x in enumerate(g) if x > g95]}")

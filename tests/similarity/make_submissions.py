"""A synthetic class of submission folders for tools/check-similarity, made
fast and with no GPU: groups of renamed copies of a few sets of kernels.

build_class(repository, folder, students, copies_of_reference) writes
`students` folders (or one per name of `names`): copies_of_reference of them hand in the reference
kernels (reference/*.cu, identifiers renamed, comments changed); the rest
are groups of renamed copies of the complete kernel sets of
tests/similarity/submissions/ and of mixtures of them with the stubs.
Returns {student: the name of the set it copied}.
"""
import pathlib
import random
import re

KERNELS = ["coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"]
HERE = pathlib.Path(__file__).resolve().parent


def renamed(text, rng, tag):
    """The code with its local identifiers renamed and a comment changed:
    what a copier does first (the detector sees through it)."""
    names = sorted(set(re.findall(r"\b(?:int|float|const int|unsigned)\s+\**([a-z_][a-z0-9_]*)\b", text)))
    for name in names:
        text = re.sub(rf"\b{name}\b", f"{name}_{tag}", text)
    return f"// my own work, {tag} ({rng.randrange(1 << 20)})\n" + text


def kernel_sets(repository):
    sets = {}
    for folder in sorted((HERE / "submissions").iterdir()):
        files = {k: folder / f"{k}.cu" for k in KERNELS if (folder / f"{k}.cu").is_file()}
        if len(files) == len(KERNELS):
            sets[folder.name] = {k: p.read_text() for k, p in files.items()}
    stubs = {k: (repository / "student" / f"{k}.cu").read_text() for k in KERNELS}
    complete = sorted(sets)
    rng = random.Random(7)
    for number in range(7):  # mixtures: a kernel of one set, the stub elsewhere
        sets[f"mix{number}"] = {k: (sets[rng.choice(complete)][k] if rng.random() < 0.5 else stubs[k]) for k in KERNELS}
    return sets


def build_class(repository, folder, students=200, copies_of_reference=3, seed=0, names=None, copiers=()):
    """names: the students' folder names (default student000, ...); copiers:
    names that hand in the reference (default: the first copies_of_reference)."""
    repository, folder = pathlib.Path(repository), pathlib.Path(folder)
    rng = random.Random(seed)
    sets = kernel_sets(repository)
    reference = {k: (repository / "reference" / f"{k}.cu").read_text() for k in KERNELS}
    set_names = sorted(sets)
    names = list(names) if names is not None else [f"student{number:03d}" for number in range(students)]
    copiers = set(copiers) if copiers else set(names[:copies_of_reference])
    origin = {}
    for number, student in enumerate(names):
        if student in copiers:
            source, files = "reference", reference
        else:
            source = set_names[number % len(set_names)]
            files = sets[source]
        (folder / student).mkdir(parents=True)
        for kernel, text in files.items():
            (folder / student / f"{kernel}.cu").write_text(renamed(text, rng, f"s{number}"))
        origin[student] = source
    return origin

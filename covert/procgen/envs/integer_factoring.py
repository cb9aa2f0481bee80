"""Integer factoring: split a number made of a few hidden primes into those primes (easy to check by
multiplying, slow to find by hand as the primes grow)."""

from __future__ import annotations

import random
from math import gcd, isqrt

from covert.procgen.contract import Budget, Instance, Knob, ProceduralEnv, Rung, Score, instance_rng
from covert.procgen.parse import int_list_answer

_WITNESSES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for every ``n`` below 3.3e24."""
    if n < 2:
        return False
    for p in _WITNESSES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def trial_division(n: int, budget: Budget | None = None) -> list[int]:
    """The prime factors of ``n`` (with repeats, ascending) by dividing by 2, 3, 5, 7, ...; ``budget`` counts
    divisions."""
    out, d = [], 2
    while d * d <= n:
        if budget is not None:
            budget.spend()
        while n % d == 0:
            out.append(d)
            n //= d
        d += 1 if d == 2 else 2
    return [*out, n] if n > 1 else out


def pollard_rho(n: int, budget: Budget) -> list[int]:
    """The prime factors of ``n`` by Pollard's rho (Floyd cycles, seeded constants); ``budget`` counts steps."""
    if n == 1:
        return []
    if is_prime(n):
        return [n]
    for small in (2, 3, 5):
        if n % small == 0:
            return sorted([small, *pollard_rho(n // small, budget)])
    c = 1
    while True:
        x = y = 2
        d = 1
        while d == 1:
            budget.spend()
            x = (x * x + c) % n
            y = (y * y + c) % n
            y = (y * y + c) % n
            d = gcd(abs(x - y), n)
        if d != n:
            return sorted(pollard_rho(d, budget) + pollard_rho(n // d, budget))
        c += 1


def random_prime(rng: random.Random, digits: int) -> int:
    """A prime of exactly ``digits`` digits drawn from ``rng``."""
    while True:
        candidate = rng.randrange(10 ** (digits - 1), 10 ** digits) | 1
        if candidate >= 10 ** (digits - 1) and is_prime(candidate):
            return candidate


class IntegerFactoring(ProceduralEnv):
    """A product of ``primes`` hidden primes of about ``digits`` digits each; the answer lists the primes. The product is
    stored as decimal text (it can pass 64 bits, which dataset loaders do not read back)."""

    name = "integer_factoring"
    version = "1"
    description = "factor a product of a few hidden primes (checked by multiplying)"
    asymmetry = "verify"
    hidden_fields = ("primes",)
    knobs = (
        Knob("digits", (2, 3, 4, 5, 6, 7), "digits of each hidden prime"),
        Knob("primes", (2, 3, 4), "how many primes are multiplied"),
    )

    def sample(self, seed: int, config: dict, index: int) -> Instance:
        config = self.check_config(config)
        rng = instance_rng(self, seed, config, index)
        primes = sorted(random_prime(rng, config["digits"]) for _ in range(config["primes"]))
        n = 1
        for p in primes:
            n *= p
        prompt = (f"The number {n} is a product of {config['primes']} primes (a prime may repeat). Find them.\n"
                  "End your response with a line 'Answer: ' followed by the primes as a list in increasing order, "
                  "e.g. Answer: [13, 29].")
        return Instance(prompt, {"n": str(n), "count": config["primes"], "primes": primes})

    def reference(self, instance: Instance) -> str:
        """Trial division written as a person does it, then the product checked."""
        d = instance.data
        n, primes = int(d["n"]), d["primes"]
        lines = [f"I divide {n} by 2, then by the odd numbers 3, 5, 7, ... in turn; a number that divides it goes "
                 "into the list and I go on with the quotient."]
        rest = n
        for p in sorted(set(primes)):
            for _ in range(primes.count(p)):
                lines.append(f"Nothing from 2 up to {p - 1} divides {rest}; {p} does: {rest} = {p} x {rest // p}."
                             if rest != p else f"{p} is left, and no number up to its square root ({isqrt(p)}) divides "
                                               f"it, so it is prime.")
                rest //= p
        lines.append(f"Check: {' x '.join(map(str, primes))} = {n}, and each factor is prime.")
        return "\n".join(lines) + f"\nAnswer: {primes}"

    def score(self, instance: Instance, response: str) -> Score:
        d = instance.data
        factors = int_list_answer(response, limit=64)
        if factors is None:
            return Score(0.0, ("unparsable",))
        if len(factors) != d["count"] or any(f < 2 for f in factors):
            return Score(0.0, ("wrong_number_of_factors",), {"factors": len(factors)})
        product = 1
        for f in factors:
            product *= f
        if product != int(d["n"]):
            return Score(0.0, ("wrong_product",))
        if not all(is_prime(f) for f in factors):
            return Score(0.0, ("factor_not_prime",))
        return Score(1.0, (), {"factors": len(factors)})

    def ladder(self) -> tuple[Rung, ...]:
        """Trial division with 100 and 5,000 divisions, Pollard's rho with 2,000 steps."""
        def trial(inst: Instance, budget: Budget) -> str:
            return f"Answer: {trial_division(int(inst.data['n']), budget)}"

        return (Rung("trial_100", 100, "divisions", trial), Rung("trial_5000", 5000, "divisions", trial),
                Rung("pollard_rho_2000", 2000, "steps", lambda i, b: f"Answer: {pollard_rho(int(i.data['n']), b)}"))

    def statistics(self, instance: Instance) -> dict[str, float]:
        d = instance.data
        return {"digits_of_n": float(len(str(d["n"]))), "factors": float(d["count"])}


ENV = IntegerFactoring()

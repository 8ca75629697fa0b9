"""English ordinals: 1st, 2nd, 3rd, 4th, 11th, 21st."""


def ordinal(n: int) -> str:
    if n < 0:
        raise ValueError(f"no ordinal for {n}")
    # 11, 12 and 13 (and 111, 212, ...) take "th" although they end in 1, 2 and 3.
    if 11 <= n % 100 <= 13:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"

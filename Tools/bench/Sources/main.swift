print("cloudgen-bench: not written yet")

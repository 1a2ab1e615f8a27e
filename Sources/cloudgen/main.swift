print("cloudgen")

puts "{}"

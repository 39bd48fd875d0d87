{
  "targets": [
    {
      "target_name": "samsa_native",
      "sources": ["crc32c.c"],
      "cflags": ["-O2"]
    }
  ]
}

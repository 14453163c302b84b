//! Third round of tuning rows for issue 51 (written 2026-12-06 from the
//! tools' documented output, before the held-out sets were read again): the
//! layouts the first two rounds did not show. Each a table of texts with what
//! must be masked between `«` and `»`; every text is also streamed, cut at
//! every byte and one character at a time, and must come out as whole.
//!
//! The values are random (Python's `random`, seed 7), shaped like the real
//! formats; none is a live credential.

mod support;

use support::check;

/// JSON Web Keys as tools print them: `jq`, a log line, a Kubernetes Secret, YAML, a Python dict, Node's console.
const JSON_WEB_KEYS: &[&str] = &[
    // jwk jq keys array
    "$ jq . jwks.json\n{\n    \"keys\": [\n        {\n            \"alg\": \"RS256\",\n            \"d\": \"«lMx0EdcX8UV5sqoQD7uzT6WT_q7Scki3YuOrWAXwdlornB1-DzfESSG9P2Vk6t9_FCpyZoxH4iPRbt2MR7Rq_Fuu4mH1OyYVLSY7qDsDfNSWLkNIASVriF6ckFHzILDbg_Oep629DXTm3sfz367Mj2RlZmQae6JmDzAR_DVwKRw»\",\n            \"dp\": \"«MlY0e5_85pzXAHrop1jMpBXVqR7oY8i2wDN64y1vyqJVFs3y-Lhldma-8hW5KCv-IAcml-d3zqclnNOY-nmo7w»\",\n            \"dq\": \"«WSeMjCEFA8z4uaYahr_vI2_83zHT3zYHQDZKgD3DllNCi2vVIQ_ovVrldamV0OeEa9Pq4IAhiCaGggTfcMYumw»\",\n            \"e\": \"AQAB\",\n            \"kid\": \"sig-2024\",\n            \"kty\": \"RSA\",\n            \"n\": \"UvImZaYMEtKJGF2VDuiBNgkWb2sRPReNbA_TkB_yOaGglfIPk5VlDPk4C47bIkprJIoekk6P0K4uGpSSozBfGIy2EJAPnjR_rohtxlB3lex0XEw_yy6yxz4Uk0yGfuBXunJJm_oSHoNrKsFXJu59awr2qxPDjpLK4NFQV7FZmH8\",\n            \"p\": \"«V5kNGgCRJokZ8l2dBhLfNZ1gJqJA9FiaXXkfHdl8_vp3entPFSQav1e9Q3rUsSmEBTTz84dcJbCL6gbCh0z6pA»\",\n            \"q\": \"«3Rey2EKEXegqW8U5iIrHgFSiOZzPyfzC2jHOPdFmvc06M4R-W7sH_QfKR3hCMbGa9Fhyzu-5_Fn0-V0UOBo6eA»\",\n            \"qi\": \"«AcbMJiwkeZ65Ho4PU66Eh457yMYb4o8OPzBGCsUZgXOPB8Lk6RBxU5z5gZuDM7FGc4KIznqB8T-yheDg8e1C7A»\",\n            \"use\": \"sig\"\n        }\n    ]\n}\n",
    // jwk log line
    "time=2024-05-01T10:00:00Z level=debug msg=\"signing key loaded\" jwk={\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"j-TxM9dyI2ofZHFQEqs9bRI2q03IH-XGJ_C3pKldJEA\",\"y\":\"4iP3dzi_8xhl4nwp_arVOSm0bv6DZ1ZrMltRF7hdBFY\",\"d\":\"«jXVwtARiVISfS4P1EBz868k6-OAaFUNFCufHLkXBIdE»\",\"kid\":\"k7\"}\n",
    // jwk log json escaped
    "{\"ts\":\"2024-05-01T10:00:00Z\",\"level\":\"debug\",\"msg\":\"key\",\"key\":\"{\\\"crv\\\":\\\"P-256\\\",\\\"d\\\":\\\"«jXVwtARiVISfS4P1EBz868k6-OAaFUNFCufHLkXBIdE»\\\",\\\"kty\\\":\\\"EC\\\",\\\"x\\\":\\\"j-TxM9dyI2ofZHFQEqs9bRI2q03IH-XGJ_C3pKldJEA\\\",\\\"y\\\":\\\"4iP3dzi_8xhl4nwp_arVOSm0bv6DZ1ZrMltRF7hdBFY\\\"}\"}\n",
    // jwk k8s secret stringData
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: oidc-signing\nstringData:\n  jwks.json: |\n    {\n      \"keys\": [\n        {\n          \"kty\": \"OKP\",\n          \"crv\": \"Ed25519\",\n          \"x\": \"j-TxM9dyI2ofZHFQEqs9bRI2q03IH-XGJ_C3pKldJEA\",\n          \"d\": \"«bNnprdHyQmcmieuDkn6zUxZHDsywLmzlEkTwBKIWzUI»\"\n        }\n      ]\n    }\n",
    // jwk yaml form
    "signing:\n  jwk:\n    kty: RSA\n    kid: main\n    n: UvImZaYMEtKJGF2VDuiBNgkWb2sRPReNbA_TkB_yOaGglfIPk5VlDPk4C47bIkprJIoekk6P0K4uGpSSozBfGIy2EJAPnjR_rohtxlB3lex0XEw_yy6yxz4Uk0yGfuBXunJJm_oSHoNrKsFXJu59awr2qxPDjpLK4NFQV7FZmH8\n    e: AQAB\n    d: «lMx0EdcX8UV5sqoQD7uzT6WT_q7Scki3YuOrWAXwdlornB1-DzfESSG9P2Vk6t9_FCpyZoxH4iPRbt2MR7Rq_Fuu4mH1OyYVLSY7qDsDfNSWLkNIASVriF6ckFHzILDbg_Oep629DXTm3sfz367Mj2RlZmQae6JmDzAR_DVwKRw»\n    p: «V5kNGgCRJokZ8l2dBhLfNZ1gJqJA9FiaXXkfHdl8_vp3entPFSQav1e9Q3rUsSmEBTTz84dcJbCL6gbCh0z6pA»\n    q: «3Rey2EKEXegqW8U5iIrHgFSiOZzPyfzC2jHOPdFmvc06M4R-W7sH_QfKR3hCMbGa9Fhyzu-5_Fn0-V0UOBo6eA»\n    dp: «MlY0e5_85pzXAHrop1jMpBXVqR7oY8i2wDN64y1vyqJVFs3y-Lhldma-8hW5KCv-IAcml-d3zqclnNOY-nmo7w»\n    dq: «WSeMjCEFA8z4uaYahr_vI2_83zHT3zYHQDZKgD3DllNCi2vVIQ_ovVrldamV0OeEa9Pq4IAhiCaGggTfcMYumw»\n    qi: «AcbMJiwkeZ65Ho4PU66Eh457yMYb4o8OPzBGCsUZgXOPB8Lk6RBxU5z5gZuDM7FGc4KIznqB8T-yheDg8e1C7A»\n",
    // jwk python dict
    ">>> key.export(private_key=True, as_dict=True)\n{'kty': 'OKP', 'crv': 'Ed25519', 'x': 'j-TxM9dyI2ofZHFQEqs9bRI2q03IH-XGJ_C3pKldJEA', 'd': '«bNnprdHyQmcmieuDkn6zUxZHDsywLmzlEkTwBKIWzUI»'}\n",
    // jwk python dict rsa
    ">>> jwk.dumps(priv)\n{'d': '«lMx0EdcX8UV5sqoQD7uzT6WT_q7Scki3YuOrWAXwdlornB1-DzfESSG9P2Vk6t9_FCpyZoxH4iPRbt2MR7Rq_Fuu4mH1OyYVLSY7qDsDfNSWLkNIASVriF6ckFHzILDbg_Oep629DXTm3sfz367Mj2RlZmQae6JmDzAR_DVwKRw»', 'dp': '«MlY0e5_85pzXAHrop1jMpBXVqR7oY8i2wDN64y1vyqJVFs3y-Lhldma-8hW5KCv-IAcml-d3zqclnNOY-nmo7w»', 'dq': '«WSeMjCEFA8z4uaYahr_vI2_83zHT3zYHQDZKgD3DllNCi2vVIQ_ovVrldamV0OeEa9Pq4IAhiCaGggTfcMYumw»', 'e': 'AQAB', 'kty': 'RSA', 'n': 'UvImZaYMEtKJGF2VDuiBNgkWb2sRPReNbA_TkB_yOaGglfIPk5VlDPk4C47bIkprJIoekk6P0K4uGpSSozBfGIy2EJAPnjR_rohtxlB3lex0XEw_yy6yxz4Uk0yGfuBXunJJm_oSHoNrKsFXJu59awr2qxPDjpLK4NFQV7FZmH8', 'p': '«V5kNGgCRJokZ8l2dBhLfNZ1gJqJA9FiaXXkfHdl8_vp3entPFSQav1e9Q3rUsSmEBTTz84dcJbCL6gbCh0z6pA»', 'q': '«3Rey2EKEXegqW8U5iIrHgFSiOZzPyfzC2jHOPdFmvc06M4R-W7sH_QfKR3hCMbGa9Fhyzu-5_Fn0-V0UOBo6eA»', 'qi': '«AcbMJiwkeZ65Ho4PU66Eh457yMYb4o8OPzBGCsUZgXOPB8Lk6RBxU5z5gZuDM7FGc4KIznqB8T-yheDg8e1C7A»'}\n",
    // jwk node console
    "> key.export({ format: 'jwk' })\n{\n  kty: 'EC',\n  x: 'j-TxM9dyI2ofZHFQEqs9bRI2q03IH-XGJ_C3pKldJEA',\n  y: '4iP3dzi_8xhl4nwp_arVOSm0bv6DZ1ZrMltRF7hdBFY',\n  crv: 'P-256',\n  d: '«jXVwtARiVISfS4P1EBz868k6-OAaFUNFCufHLkXBIdE»'\n}\n",
    // jwk oct
    "{\"kty\":\"oct\",\"kid\":\"hmac-1\",\"alg\":\"HS256\",\"k\":\"«FZvbOBFD3B90Alb-jWrt6kSfIQuGtT3wHPgpQwwuM-4»\"}\n",
    // jwk oct pretty
    "{\n  \"k\": \"«FZvbOBFD3B90Alb-jWrt6kSfIQuGtT3wHPgpQwwuM-4»\",\n  \"kty\": \"oct\"\n}\n",
    // jwk k8s data b64 jwks
    "data:\n  jwks.json: «eyJrZXlzIjpbeyJrdHkiOiJFQyIsImNydiI6IlAtMjU2IiwieCI6ImotVHhNOWR5STJvZlpIRlFFcXM5YlJJMnEwM0lILVhHSl9DM3BLbGRKRUEiLCJ5IjoiNGlQM2R6aV84eGhsNG53cF9hclZPU20wYnY2RFoxWnJNbHRSRjdoZEJGWSIsImQiOiJqWFZ3dEFSaVZJU2ZTNFAxRUJ6ODY4azYtT0FhRlVORkN1ZkhMa1hCSWRFIn1dfQ==»\n",
];

/// .NET's XML keys: PowerShell, a config file, a JSON string, members in another order.
const XML_KEYS: &[&str] = &[
    // xml powershell
    "PS C:\\> $rsa = [System.Security.Cryptography.RSA]::Create(1024)\nPS C:\\> $rsa.ToXmlString($true)\n<RSAKeyValue><Modulus>pDITmSVUQaa+sU2fkSIDew98RPisGbE3rH1KtYRJdnd3xB7+5IwzT/oV73kESnUT0YH3/nP+RGM16vLuNROUFyS/hkPzXCGa0aGCR+MctF07f+XgfGQGKADzfa5zZ026JGpYYFAe11QAU8BW1mUe8O0ytgPmvUpAXxBkY//elhM=</Modulus><Exponent>AQAB</Exponent><P>«T6BOh8I0SnKArC1FWM0E/kAJAwS7gY36MIN5Pu9yG6jRpm6ofovV42T4gU6wN/s6VzLV4bS6oiNn/Vj7DdYhAw==»</P><Q>«EqC94UFuKQ4Vqtdh3oGr+EiZPrFLC3UvKERyAENd9lT4/IxSPgj34U83Wy4AVWEVeUeApzM/gcYBF0PRFiRmlg==»</Q><DP>«XOxtwUbaDEcaDdWpSaLvJj/4RG+CUDDFX8j0beIHz8KhZung8I2MNLgUDO67aXOdwCOk3kl8DOntjCAreGpXSA==»</DP><DQ>«TEG9vfmnQmenPU17jqtkHiqkKRM1gOfPf4w4c+hV/8JzbSOMMT4XLFeOF1E9XkLPkTPjBb/eaWJpvoY1YEVWwA==»</DQ><InverseQ>«D39Hk/dcIK+Ah6HK3Nk3F0XlP2JmpXJu9E/Z0N/3BSAIbLXD5c1595Z9ABJk7u3t04fad/hyP8gbOScmhfiuGw==»</InverseQ><D>«CmQFTE2hOxWV9YfawCeo5LfI4Zhjw1O4/H4mSLmepCUL09W35IOgbbuzz4Ej6IbAgZHV0M0E06+VzOS2rvSxpDoVBwoio1z1GmDVc44MoASgiK4+fUMAdMwRv+6A5YkXqIYQvrx5QM8T2EM8usE0O72m+XV+2GETeumvScQLnaE=»</D></RSAKeyValue>\n",
    // xml indented config
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<configuration>\n  <appSettings>\n    <add key=\"Issuer\" value=\"https://id.example.com\" />\n  </appSettings>\n  <signingKey>\n    <RSAKeyValue>\n      <Modulus>pDITmSVUQaa+sU2fkSIDew98RPisGbE3rH1KtYRJdnd3xB7+5IwzT/oV73kESnUT0YH3/nP+RGM16vLuNROUFyS/hkPzXCGa0aGCR+MctF07f+XgfGQGKADzfa5zZ026JGpYYFAe11QAU8BW1mUe8O0ytgPmvUpAXxBkY//elhM=</Modulus>\n      <Exponent>AQAB</Exponent>\n      <P>«T6BOh8I0SnKArC1FWM0E/kAJAwS7gY36MIN5Pu9yG6jRpm6ofovV42T4gU6wN/s6VzLV4bS6oiNn/Vj7DdYhAw==»</P>\n      <Q>«EqC94UFuKQ4Vqtdh3oGr+EiZPrFLC3UvKERyAENd9lT4/IxSPgj34U83Wy4AVWEVeUeApzM/gcYBF0PRFiRmlg==»</Q>\n      <DP>«8dO4s6XYw+V1FY3GCgDIIDuR6wmlt032IKBAh6JvssMcGRJMhvGVMWNCOcqZAAKJTf91R/VQpdbiPnmGPIw/Bw==»</DP>\n      <DQ>«9Wm0pk4OBTF/4qylaxRBOqps7F46fgiyVrdrXK5lMgHMSr3YgRE0fvgzT8TRMTt3OEPC40sb859+nC/lOXxq6Q==»</DQ>\n      <InverseQ>«qg7ymCXsZA02BvmYJGoNtQ8vZHPltuJQuxz/FO4qVDAvp++Gv3cIT6q5YNZf/FRxKxsAFEcUWWv04h+P9sI1YQ==»</InverseQ>\n      <D>«CmQFTE2hOxWV9YfawCeo5LfI4Zhjw1O4/H4mSLmepCUL09W35IOgbbuzz4Ej6IbAgZHV0M0E06+VzOS2rvSxpDoVBwoio1z1GmDVc44MoASgiK4+fUMAdMwRv+6A5YkXqIYQvrx5QM8T2EM8usE0O72m+XV+2GETeumvScQLnaE=»</D>\n    </RSAKeyValue>\n  </signingKey>\n</configuration>\n",
    // xml in json
    "{\"Jwt\": {\"PrivateKeyXml\": \"<RSAKeyValue><Modulus>pDITmSVUQaa+sU2fkSIDew98RPisGbE3rH1KtYRJdnd3xB7+5IwzT/oV73kESnUT0YH3/nP+RGM16vLuNROUFyS/hkPzXCGa0aGCR+MctF07f+XgfGQGKADzfa5zZ026JGpYYFAe11QAU8BW1mUe8O0ytgPmvUpAXxBkY//elhM=</Modulus><Exponent>AQAB</Exponent><P>«T6BOh8I0SnKArC1FWM0E/kAJAwS7gY36MIN5Pu9yG6jRpm6ofovV42T4gU6wN/s6VzLV4bS6oiNn/Vj7DdYhAw==»</P><Q>«EqC94UFuKQ4Vqtdh3oGr+EiZPrFLC3UvKERyAENd9lT4/IxSPgj34U83Wy4AVWEVeUeApzM/gcYBF0PRFiRmlg==»</Q><D>«CmQFTE2hOxWV9YfawCeo5LfI4Zhjw1O4/H4mSLmepCUL09W35IOgbbuzz4Ej6IbAgZHV0M0E06+VzOS2rvSxpDoVBwoio1z1GmDVc44MoASgiK4+fUMAdMwRv+6A5YkXqIYQvrx5QM8T2EM8usE0O72m+XV+2GETeumvScQLnaE=»</D></RSAKeyValue>\"}}\n",
    // xml D first wrapped
    "<RSAKeyValue>\n<D>«CmQFTE2hOxWV9YfawCeo5LfI4Zhjw1O4/H4mSLmepCUL09W35IOgbbuzz4Ej6IbAgZHV0M0E06+VzOS2rvSxpDoVBwoio1z1GmDVc44MoASgiK4+fUMAdMwRv+6A5YkXqIYQvrx5QM8T2EM8usE0O72m+XV+2GETeumvScQLnaE=»</D>\n<Modulus>pDITmSVUQaa+sU2fkSIDew98RPisGbE3rH1KtYRJdnd3xB7+5IwzT/oV73kESnUT0YH3/nP+RGM16vLuNROUFyS/hkPzXCGa0aGCR+MctF07f+XgfGQGKADzfa5zZ026JGpYYFAe11QAU8BW1mUe8O0ytgPmvUpAXxBkY//elhM=</Modulus>\n<Exponent>AQAB</Exponent>\n</RSAKeyValue>\n",
    // xml attr neutral
    "<endpoint url=\"https://api.example.com\" code=\"«TCCgT04Kf8bv8tmj0ezfo0aoBnMdjaKs»\" />\n",
    // xml attr credential
    "<add name=\"Billing\" connectionString=\"Server=db;User Id=app;Password=«n45WXqDzlALTlsPwCGTp»;\" />\n",
];

/// OpenVPN keys inline in a profile, numbered, with CRLF, a tls-crypt-v2 server key.
const OPENVPN_KEYS: &[&str] = &[
    // ovpn inline tls-auth
    "client\ndev tun\nproto udp\nremote vpn.example.com 1194\nkey-direction 1\n<tls-auth>\n#\n# 2048 bit OpenVPN static key\n#\n«-----BEGIN OpenVPN Static key V1-----\nb9d21f6be6abf0d7c1c1e21862ab8a18\na8902073fec8df4f50947aaeb26c57d2\n1fa5d328263dfe574de739988b886e75\n77496a2c8773e130f7eb19731662b5e8\n03b61ba4168160adb59261ff2d3c425c\n8d99d19bdd0b6cc60d5d32cbe54014c2\nb54b95523cf6941fa1c257c6f561c5cb\n347611a3ce9d97dcbee500fe7ee5fc32\n4bdb2e1142a21c402364f9572b85a8e4\n8f687ab165c58ac5831be38cb8cb4ba2\ne751989a01749ddb14f71010b93b7d94\n6bf54074e3248c801bef750110c57513\n064d6d59291f0cde2e5738713a818d89\n62058765a6ca7cff00d796c25410335b\n400141212b62c376631129f34369aad8\n0b891baf90d0d3bf16295d06910bf3f5\n-----END OpenVPN Static key V1-----»\n</tls-auth>\n",
    // ovpn inline tls-crypt
    "<tls-crypt>\n«-----BEGIN OpenVPN Static key V1-----\nfb85967f532f3ab3cc2d0b698d5c7e41\nba4ea5ee874ae7689447ab57a683536c\n4499d863386ce10cd79e048c07dd7753\neda83d7c58dfe0d5a0cf318656b3e6f0\nbade65c3b188cc102ddb8379c7ce6542\n6f74bde94fb78c8d5f08b79affd2b49c\n12a4b0062983475eb46c5296f62e338d\n74ff1fe4f7f505aef9ebdd25b001a3ff\n416d4a3baf69dad8199bfca8b6f3a6a9\n421cc1c93016f1c4261e5351d30b4989\n5d1a0d1f13dce20c4fd32f640d003263\n4f087e51b429fe8110102c995f1abef5\n43b5dfce8a981a049d7ccc7e90a88d51\n9448fb2fc6791ce680ce2b27c8af6666\n259bbc471fb3be24a0b80316f688d3e4\n81a65c2011bef2c328a72c5e5b77518b\n-----END OpenVPN Static key V1-----»\n</tls-crypt>\n",
    // ovpn secret cat -n
    "$ cat -n ta.key\n     1\t#\n     2\t# 2048 bit OpenVPN static key\n     3\t#\n     4\t«-----BEGIN OpenVPN Static key V1-----\n     5\t1018f134a069e3fab8c3bfc5e740e615\n     6\t72b4e3c02eaa7f3b4a715e4e48dd7408\n     7\t9a58f3aef3416f9386bd8773c9d51940\n     8\tea4e095bd1d6854575622f856469602d\n     9\t1ba9f20df4875b15b0be23b7ac193fe0\n    10\t4072755398003680e7e3b35183ef8333\n    11\tc4774ec50cd1c1bac7adac1a4b7d0b35\n    12\t2ad6074dce1118813830d71939b53182\n    13\te4e349d98729e7c6be9ff907a76cc0b5\n    14\t7aaf89691052be1ceb374dab4683f84d\n    15\t30d3fc4d83cee9b9bcca0fce9594dc72\n    16\taa7a6d0018f99ddceb1be0273dbc46df\n    17\tcea25bab29539ad5966d513b1d00909c\n    18\t30065f846d34530325fed10a47b85183\n    19\t2b6ec017c1e1777155a0e9d8f27c7d9c\n    20\tf07255bc509cb3acac23db7c6e9b7d18\n    21\t-----END OpenVPN Static key V1-----»\n",
    // ovpn crlf
    "#\r\n# 2048 bit OpenVPN static key\r\n#\r\n«-----BEGIN OpenVPN Static key V1-----\r\n0a4742684ee75bb6cc69f67e48eb7c64\r\n328c0490c257a632b96292794c9bce48\r\n50bbd0e7cb3593871c15d694c1957f8d\r\nb03911731a6b2dc782bdeae16d4f6185\r\n578715bbd26944ff770e4b9447a3d54e\r\nc6390bf61189639e35aeeb95210ef2a8\r\n3fdf6a0b29872400c49b5539ac5ba7b4\r\nb87113c16fdf5924754ec21ef66b01d4\r\n921da2e055c90eb6f2aed4c21a9dbf49\r\na067e24bdb7ec83756378368f7e732d2\r\ne433ec56f24b1c71b106e934d263b5ba\r\n0837bbf1b3ba3178b6e0e30f328549c4\r\n88e00a4ff1125cf5ec72ba694165beae\r\ncba0afa707e1448c828b4136d3b97429\r\nab7bca1aafb77b4460ecec9524998a26\r\n259bebd2fa5880587061ce6936714122\r\n-----END OpenVPN Static key V1-----»\r\n",
    // ovpn static key v2? tls-crypt-v2 server
    "«-----BEGIN OpenVPN tls-crypt-v2 server key-----\nz9Dgk1e4IgEwRYmk4AOjUuwHNlJT3r8GpnxnnK3MViwO3WrLCxagnFXGfvyZZkHw\ndt8DBuxRkKf8UA5qnbW51VQoFwQnNSSHxNcXW9BcbFiJrpbdjieo+5qTVDq9nkLQ\ntnrDCMalT6bFjPq0dI9HXIWH8EYhQAKOeRmnz8b6XCb9oDpmwfoX7wefIh8Pi4A0\njscuQvCbXbwm5y3evNvrxymHB1nHtT5x+9x/NqLpWObMY3U2UsrnBhuouwMQzqXp\n-----END OpenVPN tls-crypt-v2 server key-----»\n",
];

/// `openssl … -text` dumps of other sizes, curves and indentation.
const KEY_DUMPS: &[&str] = &[
    // openssl rsa 2048 header
    "$ openssl rsa -in server.key -text -noout\nPrivate-Key: (2048 bit, 2 primes)\nmodulus:\n    00:cb:17:cd:c7:08:08:d7:7b:6a:d8:9f:65:f8:49:92:\n    a0:f7:5a:e6:16:b1:e5:d4:90:34:04:94:b3:5e:c2:\n    da:ca:17:60:14:7d:30:1a:23:3f:4d:05:74:3b:f2:\n    b6:72:85:08:82:16:1d:b8:0a:1e:9a:d8:cd:ad:c4:\n    cc:d4:07:8c:76:32:11:ca:ea:e0:ff:ac:7c:b2:c8:\n    a2:78:8f:bf:74:2b:65:b7:54:e5:1a:cb:d3:d4:8c:\n    3b:b9:e2:8c:9e:3e:f5:40:4b:f7:ba:c8:06:08:15:\n    98:a8:78:e2:f2:64:d9:b1:ec:b1:9d:d8:b7:c4:6b:\n    26:a2:2e:cc:df:03:ee:dd:f5:2e:cf:40:76:c1:9a:\n    ce:32:72:03:f2:6e:16:af:1d:4d:14:aa:60:58:82:\n    ac:89:cd:19:97:cd:89:64:16:be:f4:ba:6e:1a:02:\n    da:18:7e:96:6e:ce:66:15:d3:14:2f:50:5f:79:65:\n    46:3e:36:21:d7:8e:d4:14:15:e9:7a:49:8a:64:7c:\n    1a:c4:97:26:e4:5d:ac:31:b3:62:9f:b0:f2:6f:89:\n    26:4f:87:91:30:b6:49:15:ab:ef:7a:b5:39:2e:33:\n    5c:e1:11:3d:4d:b2:b5:b5:2a:0f:94:83:37:34:f8:\n    3a:e7:51:8b:69:c6:47:73:03:1f:67:25:48:0d:c3:\n    93\npublicExponent: 65537 (0x10001)\nprivateExponent:\n    «26:77:17:2a:31:65:9a:2e:50:ad:d1:27:45:4b:46:\n    67:a2:0f:1f:a2:26:1b:d2:b5:ff:48:91:e5:dc:93:\n    28:77:6e:7f:1c:ca:cc:27:ad:90:9f:03:fd:d9:e4:\n    a6:2b:ce:19:a2:85:ed:73:61:c5:c8:a4:b5:7b:c9:\n    fa:65:c0:05:37:e8:b3:c4:8d:2a:e8:9b:9c:1f:fb:\n    01:3c:e9:4e:1a:f4:08:46:1c:58:79:0d:d2:cf:b8:\n    a5:f1:b4:61:59:59:19:cb:58:9f:6a:ec:38:bc:ac:\n    f8:36:ed:5a:14:8f:d2:8c:bc:93:8e:01:9b:b8:72:\n    3d:39:55:3c:ca:cc:fa:b5:4d:94:6a:2d:20:7d:c6:\n    84:47:73:91:c9:4c:82:86:79:3b:2b:02:3a:60:e4:\n    e8:1e:11:e3:f7:9a:a7:66:90:75:08:db:28:23:cc:\n    d7:1b:a8:2f:4d:ee:6a:63:c5:96:20:e6:68:69:00:\n    2b:6d:08:b5:ab:93:15:bd:0e:3a:34:bf:f2:aa:f4:\n    38:c6:b8:06:8d:c5:d4:40:36:c0:02:e1:62:aa:ef:\n    60:76:bc:33:46:ee:e2:1f:5c:7f:f4:3f:c2:77:0c:\n    71:73:60:1e:1c:77:1d:81:4e:0f:33:54:5a:3c:02:\n    02:21:9e:c0:60:5e:63:6d:32:b3:27:32:b8:99:94:\n    fa»\nprime1:\n    «60:22:13:6c:ed:62:01:04:d1:59:e8:48:9b:0a:c3:\n    5e:5f:a8:70:d0:a7:ba:07:a2:53:1a:da:b2:3e:56:\n    17:d2:66:90:8d:35:e5:9c:7a:80:26:84:22:c9:22:\n    20:2b:24:3f:8e:53:89:cd:5e:3e:aa:60:c7:36:ba:\n    80:62:25:98:51:4f:31:c8:27:12:90:84:bb:54:b8:\n    bb:53:75:9c:07:67:cb:7f:80:13:cb:79:0f:ef:33:\n    ef:2c:3f:f5:7d:e1:36:28:be:f7:a1:27:f6:c3:1d:\n    17:5a:63:2f:8e:e4:2e:a3:68:b2:3f:f8:50:0f:17:\n    f4:b4:ca:1b:57:0e:2e:61:9e»\nprime2:\n    «46:9a:62:c0:50:bf:72:fb:f6:66:f6:9e:87:a1:d5:\n    ad:0b:57:04:8e:fc:48:73:8d:44:4a:15:7d:52:ed:\n    87:48:d3:1d:30:92:95:4d:2c:93:e7:fb:6d:28:c5:\n    87:db:82:1f:6a:0e:fa:5e:a7:d2:6d:c4:7b:bc:fb:\n    47:68:31:4c:d2:fe:ab:bd:a5:f0:5c:b3:96:76:b9:\n    85:2e:16:0d:80:20:52:70:57:58:70:03:22:64:fa:\n    2b:a9:df:8a:12:85:82:21:84:aa:f4:61:4d:c9:07:\n    92:f3:24:6e:e7:2f:d4:06:63:e7:8d:a1:07:07:96:\n    e6:56:98:45:17:ea:9c:a9:1a»\nexponent1:\n    «29:1a:74:57:e0:6a:3b:f9:23:2c:df:28:7e:af:db:\n    ea:13:e2:84:14:2e:19:2a:d2:4c:31:19:43:2a:5d:\n    57:5c:da:b3:7e:32:8c:f7:59:ec:64:6f:3a:70:8f:\n    4a:a5:a6:d1:07:b0:81:1a:7a:8b:9b:bc:c9:37:0d:\n    71:54:98:ac:d9:47:a1:b5:a4:1e:af:e6:ab:72:33:\n    a0:07:b2:2f:16:ec:9f:c9:fa:b9:b3:2f:ed:07:66:\n    bb:31:ed:04:d2:59:b3:71:7b:d5:c2:d6:a9:a5:f0:\n    4c:55:03:b1:16:06:e4:64:4e:0d:48:87:d6:e1:20:\n    a5:78:75:75:63:e6:8d:1f»\nexponent2:\n    «0e:22:d4:ae:56:ad:76:75:db:d9:95:6e:24:6a:39:\n    5d:fe:ff:8f:6f:45:72:bc:2c:3b:da:bc:4e:01:fb:\n    cd:95:04:bc:a7:a5:c5:93:40:af:ef:8b:0b:af:3a:\n    8c:80:bc:2b:08:a9:f5:c0:26:61:44:97:71:d8:33:\n    42:4d:61:fc:d2:54:91:21:53:10:a5:3e:53:56:b6:\n    b3:da:cd:8e:7f:05:55:4b:1e:1e:0e:e0:ac:41:4f:\n    5c:50:0b:d6:cd:af:5a:c6:86:0a:a8:a5:f8:2f:14:\n    d2:d9:d0:24:3c:83:de:82:eb:31:f9:62:88:b6:d8:\n    ea:cf:31:49:14:bc:78:1e»\ncoefficient:\n    «f0:22:16:ef:29:a5:43:58:a5:57:f7:88:17:59:2c:\n    e6:3d:fa:1c:7e:f6:85:3a:c5:4f:ff:8b:3f:a5:a3:\n    bc:34:f9:ac:5a:0a:6e:39:eb:bf:65:b6:69:97:2d:\n    06:26:37:39:36:08:1d:28:a0:db:50:65:73:63:8a:\n    cc:02:d3:84:db:00:1d:c5:bb:4b:b8:45:54:43:35:\n    93:fd:e0:17:d4:70:7b:72:fc:da:f1:71:e7:15:62:\n    82:a2:a2:d9:2e:74:59:da:3d:51:f3:51:91:a1:36:\n    c5:76:d8:e2:7e:07:c3:6d:29:ba:78:a7:1c:dd:24:\n    22:16:83:cf:86:3f:e9:2f»\n",
    // openssl genpkey ec text
    "$ openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-384 -text\n«-----BEGIN PRIVATE KEY-----\nICQRe28gqK8Gsi+U/Pm4C8q3ys0THM1SPQ04lfK5RFkrstRdaLbTRin6cHAtACEX\ni7lu3Tyj6Ceo30K3HR3OYRerOAAnCt9aFd9O/5dR2Oi/yY/d75Zx+PSkyPLWkIgy\nT4Q0e7pWIF9ago+W/TieR6iAIIAFa26qmS8LiEtGHsWgtHLHX4R5P7Ts34KKYItK\nS2bUtQjRQXtSu642unPcW7VOdFwWwVy7pzXTO/vIbqe8rUGiXbEERYwPV1xoCG/2\n-----END PRIVATE KEY-----»\nPrivate-Key: (384 bit)\npriv:\n    «97:aa:f3:5f:3b:68:f1:4a:de:9d:4a:45:5b:81:7a:\n    15:1d:d6:4b:33:8e:c8:0c:c5:c0:b3:aa:41:66:07:\n    93:67:7f:a3:1a:2e:37:6e:9d:b0:73:ac:7d:7a:7c:\n    19:8f:fe»\npub:\n    04:01:ce:75:fc:53:8e:29:e6:02:22:5b:0d:de:9b:b5:\n    3f:3b:96:7c:ba:89:2b:3b:a4:a3:a5:d0:b7:c0:56:\n    eb:c8:75:e5:b1:0c:7a:c1:ff:65:25:58:45:a9:4f:\n    34:89:96:7e:a4:bf:e5:13:21:48:25:00:7e:2e:75:\n    6a:a0:4a:b2:20:31:59:89:26:e8:01:97:92:f4:ce:\n    ce:67:88:74:9c:17:36:eb:eb:f0:bc:65:bf:c5:4d:\n    5f:66:7b:38:8b:3f\nASN1 OID: secp384r1\nNIST CURVE: P-384\n",
    // openssl ed448
    "ED448 Private-Key:\npriv:\n    «9c:6a:d0:98:44:59:3d:ed:d6:34:d5:4a:7d:c8:43:\n    56:5f:6e:f3:06:e1:3d:69:75:bb:3f:25:94:83:11:\n    67:62:88:28:f5:80:9e:7b:7d:37:03:a3:ef:07:6b:\n    1a:cd:c7:9d:2e:df:85:dd:61:6e:73:2b»\npub:\n    d0:08:f5:6f:49:d6:4c:09:0c:ea:7a:24:12:91:99:\n    53:22:90:b5:cd:33:e9:fe:c3:d7:c6:af:cc:83:1e:\n    86:4e:c8:b4:5d:48:73:0d:21:e9:e2:33:c9:0c:b4:\n    f2:00:47:22:62:49:de:87:a1:3d:91:33\n",
    // openssl rsa indented 4
    "    Private-Key: (1024 bit)\n    modulus:\n        00:d2:68:f9:5d:09:ea:98:23:fa:7b:3a:99:b7:d8:7d:\n        e8:64:40:28:5b:86:ce:53:93:5f:d1:6c:cd:6b:9c:\n        cc:6c:4a:e1:27:25:b8:ef:a9:b5:55:24:6f:a3:44:\n        7a:99:28:6c:0d:7c:e0:ec:03:7c:87:03:ed:27:e9:\n        61:b1:30:f4:c4:e8:bc:56:2a:d6:9a:1b:31:a8:88:\n        de:ee:ea:35:37:46:46:fa:6a:ef:15:15:e2:2e:00:\n        fd:2d:74:1d:7a:9f:dc:10:a1:d6:7a:00:31:df:fb:\n        3c:a0:c8:d2:fc:3f:3c:3f:d0:3f:91:d8:0f:7b:ec:\n        39:1a:97:c0:de:4f:91:90\n    publicExponent: 65537 (0x10001)\n    privateExponent:\n        «4a:17:05:87:c7:a4:37:ec:b4:e5:9b:08:f1:35:0c:\n        2a:a2:4c:49:13:e4:f3:64:97:01:83:5e:a4:5a:c4:\n        e8:85:4b:47:03:69:09:a3:9e:5e:32:bc:55:62:02:\n        c2:47:e1:de:30:ca:67:db:eb:4c:29:d9:93:6d:ae:\n        96:f9:c2:3e:2e:d8:f8:c3:75:d6:0f:ca:c3:2c:49:\n        d4:9a:ee:9f:45:80:d0:8f:b6:d0:ed:62:27:9c:6d:\n        be:db:c3:72:93:ed:bd:57:da:8c:af:e1:f6:15:1b:\n        92:67:f9:ed:21:25:62:c4:9b:24:ad:73:12:fa:1c:\n        8b:e7:85:e5:5e:b4:c2:69»\n",
    // openssl ec secp256k1 with prompt
    "read EC key\nPrivate-Key: (256 bit)\npriv:\n    «b8:73:ac:7a:00:ed:b9:f7:79:6b:fb:c2:00:ca:f6:\n    d6:f1:f6:af:08:94:e6:9f:56:9c:a0:39:b6:45:d9:\n    3b:43»\npub:\n    04:98:d8:e9:a8:07:a7:a6:d8:a0:99:08:46:b3:ba:35:\n    d8:2e:f9:b1:ad:85:ff:a4:78:37:77:16:74:fb:fb:\n    16:7d:f6:1a:12:8b:3f:45:34:c4:96:af:2f:ac:6b:\n    0f:f6:63:e7:3a:43:6a:b2:d3:19:ce:f8:a9:06:f5:\n    26:bd:62:21\nASN1 OID: secp256k1\n",
];

/// Key blocks under decorations: CI and system logs' prefixes, `nl`, `grep -n`, diffs, quotes, tables, comments, `cat -A`.
const DECORATED_BLOCKS: &[&str] = &[
    // gitlab ci timestamps
    "Running with gitlab-runner 17.0.0\n2024-05-01T10:00:00.000000Z 00O «-----BEGIN RSA PRIVATE KEY-----\n2024-05-01T10:00:01.001234Z 00O myAEhux8cPCYqdBARuoHaeyQRYcKRSJ2/jW93DU+JQfloqqslUUhfGlc8uUAb2uy\n2024-05-01T10:00:02.002468Z 00O DoH//Bp/9JXX2bvfCmeyIn7FfSwlx4NnzeAhgODua0dEFT0dde2lXZEZ49mCiIMu\n2024-05-01T10:00:03.003702Z 00O /YQ3IwQXVDtQOh8May4IF+t6e97gqLLgujbCaE3AuqI0JI6umHbGeCoKWI7TNc1V\n2024-05-01T10:00:04.004936Z 00O +uceuzVwGx65v75VpYXH8YSUjyXrr6UMp0SWAX6TwWuSDSFUbaBrEW49j4RchGQl\n2024-05-01T10:00:05.006170Z 00O bUJfTPibF3AEUrgdZX5yLJceXQk9kAMm3w3wtUned6xS6A7o5DzWqz1yQdOy38vn\n2024-05-01T10:00:06.007404Z 00O eHFjHTsvzM7dyttdHVmX0fy0t8l16iX3D2y7NxG5z3GqlHnJ5O/uw50hGbKWAmto\n2024-05-01T10:00:07.008638Z 00O -----END RSA PRIVATE KEY-----»\n",
    // jenkins timestamps
    "[Pipeline] sh\n10:00:00  «-----BEGIN RSA PRIVATE KEY-----\n10:00:01  P4Dtt7r/H5Y6cFc3kuRTF3Cc0NguuriEVPfxuvMQU9+bBBxAae+fLKOAV9cIch9S\n10:00:02  jzQr3U6Jnibm+oNEQemVr0ZyyLknS0OzcDbomyqWMXEh4Da5VSxl0cJOZ9p5+2Un\n10:00:03  xl3nDGzT66VALfrqhlWuNGH7RdMiIOLpXP+y0XWDhpg0Iy2kVvyuxYtDAKy1v24v\n10:00:04  EfZCFzYb0kuMf1OZP/xK00fJWK3KsskNsr7ikKeoHZILBSqQQt2HFNKhld1uMT19\n10:00:05  +4vAzld0C9n7TkH92cQeZafHW8jjjUy1Gb8y887a+pqkta5SSEZFnBY7/McLFZxh\n10:00:06  WZMvp29W7kQ/oCrdofWohIJLLZPf5RyNLAc9XoODeSKN87pr5JR3Kgpf1BYEplHW\n10:00:07  -----END RSA PRIVATE KEY-----»\n",
    // buildkite
    "[2024-05-01T10:00:00Z] «-----BEGIN RSA PRIVATE KEY-----\n[2024-05-01T10:00:01Z] JAaaD8gvIE1L0dndsPcbga8oy+RopieKqEtRLCJyKnJnLiBNYiKNUo09Z17MyRaH\n[2024-05-01T10:00:02Z] VJvudN2/6xjDwImNyaCS3h6RQZwYJuBUUt1oBIkZGS6078try/LhQlEOJb/CRrEf\n[2024-05-01T10:00:03Z] X1hXpifs1HR1p88LVk1StYMZvlDhDlq2sYdnr9xbwo2Ol1xzRiPiEs3eTqAVsTGo\n[2024-05-01T10:00:04Z] 9m4KCs/th0iN6oouaemOiRci6z8ariP0rHGkn87UsQDuPA05Ark8wcftJ2CI4cUm\n[2024-05-01T10:00:05Z] KNqH2+bCv5Nl93rPRwH11sg7rlBNj7vIfOzMCF1v4SCvn3MhkJnOqYdU9aYBtuX4\n[2024-05-01T10:00:06Z] trR9jdmMJgJWerbU0mVfkf4Hpn4L6h94ExaRZlI7QqdypRRx6InW2I/ucZROh5qK\n[2024-05-01T10:00:07Z] -----END RSA PRIVATE KEY-----»\n",
    // syslog
    "May  1 10:00:00 web01 app[1234]: «-----BEGIN RSA PRIVATE KEY-----\nMay  1 10:00:01 web01 app[1234]: WHz52fT8ujfTbhNpH4JYtiCKbOv8qtU19T04PThXBWZGSQ4Dh2tM66zJj2OYukzC\nMay  1 10:00:02 web01 app[1234]: vJKwobYreHR220lmChh38p1SL6LcgeEH2rjQ7n3eLDtFXryc/JocVAGUWupZY5nA\nMay  1 10:00:03 web01 app[1234]: HPLY4lZU6LdU0E4kLcr3BZbZ09wQdor7u1D7OO+AGgBfN/9oiEL0VECIBhPyiEOy\nMay  1 10:00:04 web01 app[1234]: j6RcEpOO77XyYeCTQenSwQRYagbxS0EEXgyUDzyNtYendRiY61YSiLJBWRkk9RO9\nMay  1 10:00:05 web01 app[1234]: /8jM2XVzyzz4Le23iM9G74RX+9G6eavH10Bono+S2dEyFdv6BoqJ25MOJczs03BX\nMay  1 10:00:06 web01 app[1234]: L2hp2JdLbTEArhfTtoshIEFxzpfcreG3LLYB/MEGmdhdUQQPbkM8PZYb+3M17hOj\nMay  1 10:00:07 web01 app[1234]: -----END RSA PRIVATE KEY-----»\n",
    // journalctl
    "May 01 10:00:00 host sshd[812]: «-----BEGIN RSA PRIVATE KEY-----\nMay 01 10:00:01 host sshd[812]: sTobOjkZcJX8HFNvUP557ynLZnizKFJhy3IviRmtoBhzj+t+GhK/PavLXtogFZyt\nMay 01 10:00:02 host sshd[812]: wml4+nhgryOc3Wx/L+52SYwY5Zn+5Y4oVF85mKHQvTw/crDR/9tkgPB+b4mmyd0k\nMay 01 10:00:03 host sshd[812]: NDpY1ftUEBJOHnkuvnah9+7hq3cAZxKUCYVuMAb7hvChIDPB21hpU/U1W6aeMYru\nMay 01 10:00:04 host sshd[812]: QzPH5wHxP/RSvuHYgA4JqkwDnLXP8xsGx/Zj+YbVa79wW/3W6wTqoryfs3Mklgko\nMay 01 10:00:05 host sshd[812]: 1NWstqF2UJJExOvdiHcFSVfkWQQRxfoS53HQyQGGatscybl6z9bKF8riHkQDYxfg\nMay 01 10:00:06 host sshd[812]: 14jUoYT0PGXbOB6vU5sAsPuEarHF982RlCr8h8ai7aL2AhUtwDs5LFP/V2T93A9Y\nMay 01 10:00:07 host sshd[812]: -----END RSA PRIVATE KEY-----»\n",
    // nl
    "$ nl id_rsa\n     1\t«-----BEGIN OPENSSH PRIVATE KEY-----\n     2\tb6oggP/TfzKzTYUBxDNW+2k0vnOz7+M7TwrZVrxjkjpo7pFiExcYG0+KH3wM3bcW\n     3\tu7GdCDQJuCDT4p6HOp6Qa2U9RFgmpN1WoXXu/yxyQ/aCdw/bTTeKOntN6OeTqqOU\n     4\tlcrJjV2mALv7isq6IBIc/ji8qKMh2AUpfikBikJdYdE0ewDQQq8+21MiakNcU1Il\n     5\tBIHWT7yYfqkApjsU5nh1qDTV0XvkIh/xgHSP/R4BUS+eiqwwoJqez2CHEagEMtaS\n     6\t3djnTBPixB0rcVgdM5Dc+NHu1fphR+8yQmeSHaxqO0BhaRlsy4cvKSLdRyajqaMk\n     7\thsfassD9NX6I8ys0PS8lZBN4WbHiUaepFvo4EJfthwQGrBiTkPWZwRQaxV4975Zr\n     8\t-----END OPENSSH PRIVATE KEY-----»\n",
    // grep -n
    "$ grep -n -A7 BEGIN key.pem\n1:«-----BEGIN RSA PRIVATE KEY-----\n2-h/ZXX/K6ZZBsj4r/1rH8KcWuiei3zaPt9Qv4TMI0NyqRZXDoO27IeDi8tRJ9yW1p\n3-tES5Tf34/2/MvEO1q91+svALcn9bgAaneCmI1U5MGn17ExLhK3Bx+Fl6gEaHVmOe\n4-InUEoI8W+F1IJlrHUVK+aX6ay9IBJiH3NOdeOWZUYiH3kHCVk4T2CqSXmNbUPFWw\n5-Cbj1JIj/lZAR5r5OX2qkfUhg64FeM0aE5Ds4fEUtfL77jB3yNXjL3RP9aoHIsLZB\n6-yxIexOMZW37QOXgU5OB6XkHaJul/IAzUKbLfM5J/3JomOXpEdwEbZUO467m5PILZ\n7-nEjcG/RKmNoMQN+iKuk9pCOdg+qV9HUieAIkNbfJiVhPSdXu8A3sUfx2ETpjQXMn\n8------END RSA PRIVATE KEY-----»\n",
    // grep -rn path
    "config/keys/app.pem:1:«-----BEGIN PRIVATE KEY-----\nconfig/keys/app.pem:2:Qce+3+cdIz+B+fc3495zKhpQdFKEYMkuLydH9PxnA8WcexgQwBVs/uwpOb3gGjo8\nconfig/keys/app.pem:3:DFIWpxPFY/f4hVoZt7II0YQgioIZeZS/ctZTF9RTsBYeZhtWDTxDmKKO9wz4Vd1a\nconfig/keys/app.pem:4:H6DKzcPSefT+Ppl9HjY3sSEBnCKfxNuwAvUCE/ksQ5JDNd3qHBjKVuU9j/ub1AEu\nconfig/keys/app.pem:5:mzKda8WBhAkdGTgtpwwUvRtJQLvLYItmW3n2CJTpPRGQc9oOXq1vdpNh/JqjbC4N\nconfig/keys/app.pem:6:lddSlXkDtiYF3oFCUIiZf9Ldd+mhF0kdQSGCB4jdOWLD0H89W1RAItZN5q3wXz9P\nconfig/keys/app.pem:7:EpahnwYG2+KtTFadcUOuTClgXTrJFq51lckaHTeEQdsITaOlkn3sfI2z62t4BIRa\nconfig/keys/app.pem:8:-----END PRIVATE KEY-----»\n",
    // diff -u add
    "--- a/deploy.key\n+++ b/deploy.key\n@@ -0,0 +1,8 @@\n+«-----BEGIN EC PRIVATE KEY-----\n+SAh2De/yfGQAUlr1MhafBIKMeVvtP8MpFmQHX7NhmBqnnoALCWJzhdUEmiULWB+t\n+5xaLxioxtNbs/93ppfbO+RZEdvXPaVesJC7dlLRbAR4Q747Y9MaecODwGpuTUy7A\n+VOkm5na1C+Wo2aU35yTEGhPJ3pSKYO9cffwUUrToLMn71Yq65iR+ilNBqUy1OHWQ\n+RutrTraKOikoS3tdqGERw0V6+A9E4MWiThsVGHwm3v/GUgz/tPOebXvNqjWFlS4S\n+snggqU9K2h2R0YLVtXd+IGLyjacFrFlhCkH+gugSp14ofdo9SHDOHaYomvu9p0RL\n+1dCK1cHY1jlBAmleXI4Tw+CSr0R9b4uC4XMRDVsSryWID3+rQtc5zasPVwXvn+ay\n+-----END EC PRIVATE KEY-----»\n",
    // diff -u remove
    "diff --git a/k.pem b/k.pem\ndeleted file mode 100644\n--- a/k.pem\n+++ /dev/null\n@@ -1,8 +0,0 @@\n-«-----BEGIN RSA PRIVATE KEY-----\n-+FZGmoMzGhlbShOKgB/0dsM+XfRG2u7dDbjYmds+Ea7zsaU2Y/xsT5tehsneXeWL\n-UzYCyceOpbqnlBN+EzDmuF2Aef/5AzGTojUPUY+DvYQoIcLd917T7coi8lq3MIx3\n-09/O96HKq44t3lYRU3vbvsgzSnv+iQ8ND3ZTuhOU8yxb/mNd2hGINaHjcIx10fWN\n-RqeGsHr/JDQlh4EVzGduCw9o7+cj2+K0C/qmjCXaQoBrG8F2b7ZrU2fNhdpHD/OD\n-MLQhx4zsWTG4WApYrdNdLu3wTOtuNlGJiB5H5at9aaK1VEo5dJWOWredp/ltaxVL\n-HHslWS+cLuKpwFc76Nc7zD7VLnYks66/lMFAFc8SrH5t3ZvDqItwvRfZXXny7l8d\n------END RSA PRIVATE KEY-----»\n",
    // git diff color
    "\x1b[32m+«-----BEGIN PRIVATE KEY-----\x1b[m\n\x1b[32m+oxIWZsYQ3edfT1/+g/1ABTXcIBCv4oI89F/299908SrWbgbbITH5X99JnUSeUG8j\x1b[m\n\x1b[32m+bJQlqox+RjMfR95tk5XgxEvTk6ZGCtQTNdWlJ47FUw4UJ3zvhcLRpjRgL4NOMc0M\x1b[m\n\x1b[32m+OzeiIwiCFfu1in9bHIN5UfD7ZLSOCWuxgY0LYuK1lOBYC0jwL8XvqNfDYO6aDY2q\x1b[m\n\x1b[32m+M4oIIrzbKf2QgQRjBdUqOKf3nBz9j6hvhS0DaPXKfd7b+wo21fJ5FTcfZ8sTlpR2\x1b[m\n\x1b[32m+OAqzdCxjsHueFbZt85NLd64LZV7kgNOWw46ZPUJ+6A/4HvMlVofSA6181p/NlXTu\x1b[m\n\x1b[32m+ZUrLbqfWip/fNwj6Az12mhiH1yAWCeGXORciX8DDrexpypgGjVzyu4Ecimp2L2kv\x1b[m\n\x1b[32m+-----END PRIVATE KEY-----»\x1b[m\n",
    // markdown quote
    "The key was:\n\n> «-----BEGIN RSA PRIVATE KEY-----\n> sLYcx7Fx7aDCF4t7Wl8YnBeGisHhsd2ZLly/d84zeiXbeC80VZyD+ro9cmpN1N1/\n> ZANrZjnge2+0eFzbqb9+xQM29llJyYtJ9So07hAXNFsn7dkXhCQKqkXqglIsqk4w\n> 5/9xjzvVmBwcqYUCpZkWzYxyT4y+5J0u6Mebhy5pLxW0vs8mEIdqCUj6d8Pfgo/l\n> vgXDh0cRns5gQ3kTh7WqJit61swpAlC62bj8ol3p848JzvQhMxIIssMOKTHAQwGy\n> HzZbUBWBeCFYcb0cfsf3gtcSK37qEOU8kKqGKCs3Uh84uDJVnQZTEcReku/TXBZc\n> 2EmBWqH8Peyy8GeXuPSVQyM5TNDA1AQmodCLRLYVVAF6g3qOv8YS/oInQumWs0J8\n> -----END RSA PRIVATE KEY-----»\n",
    // markdown nested quote
    "> > «-----BEGIN OPENSSH PRIVATE KEY-----\n> > NCk7d+WeXb/hALz3RESNwAL47rqh1hy0hPV+eKvCSoLojp9yEivRf+IhTUO2HNxm\n> > 4QUSzdZBPwjNiq8xd2Tm8c3q/vb1UpIqvIar92aef4SCiTfzQn7YKNhWskawE4Kj\n> > ki6qhAHqcUv4bzRZdw8TSUF00iYITMyYzGneIEGD7m9fh3Oq8/uLWK4CHBYBuUNp\n> > GxPSzj+P9aStyTHAtbZR1YbmE7nVCskVlD6w21c6IN1Tzr1wkC0iFz3qeRQDjgsd\n> > c6oiROO/IFi/vcvaUMCKk/0NnYljgvmaQkr0/0+oa9pQ+Kbk4cKwHi6v/e25loH2\n> > 2dobSZleybnGW6zFEBt64USSm/VlU3Qhic+Wr+NxSEhG5i+iHIrZB+s9ILRcBOfZ\n> > -----END OPENSSH PRIVATE KEY-----»\n",
    // box table
    "┌──────────────────────────────────────────────────────────────────┐\n│ «-----BEGIN RSA PRIVATE KEY----- │\n│ 3Yn6Uf5JTX8R2D83gPwDmUDXeZCuwyfSH4JU7BcjH7Ia38zj4ZgKmM1+1zymnEwc │\n│ 0WYUeAse9F04IOrPwbMLlRhspcslwKpLrHw7Znr3NmLf/aGnsNGfLA9W4p7H+YM1 │\n│ l5h+vsGNiENHN4TONnUBZIWp3tG4JjWHgrSVtZQPdeeC9LB14QGEAsgLrm0evkJp │\n│ UElaN331S3b/PrtPX4mzgOxRKMWhSvXUYIXgHM3ZUbEkec6ZanBZXHbCumrkZOqA │\n│ xFwt5l4jAQ4zUVfqLap5fiG2p6hpOT9RrwFTRgbU1jXBt+DBS+ZDP7JnJQD346cF │\n│ jDoNFEjdbKL7vCWel6QTxfg6v8nP/L8oLj89EgrZjbkUNjDaLAnr/coWSSf4ESiq │\n│ -----END RSA PRIVATE KEY-----» │\n└──────────────────────────────────────────────────────────────────┘\n",
    // ascii table
    "+------------------------------------------------------------------+\n| «-----BEGIN PRIVATE KEY----- |\n| IxZhn85NGdjJAItJzONWvwoJGYy5IIG8w/gyYEewNs3Zs7QdJyC5xgmXd7pBKMOJ |\n| t+2vBjJACnmjXLFzAinWzOWQXOGEIaZq7PqmvoR1xP599ggwjH9pNVXOZAc420/M |\n| vzfirXQ52IMgFYQ3vhnH5mNzKur1tJt/pxdY2BwHki5n2ONNqSXBjZGVwJgiz/8l |\n| lJKYITDuF0O0x7nFqplB7nz/xE2jZuj2FkzGDgP1oFGI5xJIa7mrFd7RE+WCl8vo |\n| HaLkwfCLV4Y1ziUtON9rJLVZ7/qOLvRhbbyoyAAUaw8FHSHuzy8d/UyThlKGPQeF |\n| HDGtMWcKF5R6tl/M/8sMmi4UE5aNjfUGx2QcPYqDW+76QLQGmndBtG9Mho1gDpBk |\n| -----END PRIVATE KEY-----» |\n+------------------------------------------------------------------+\n",
    // python repr lines
    "    '«-----BEGIN RSA PRIVATE KEY-----\\n'\n    'F9NrIfwbZtGBk8BHz2W8AmEOtrszPp07BJEx9ixPWu28HgXg4PkXGfNZ8vOd+NcR\\n'\n    '8Jpy19sHCDDHpqVTxlEmAhUDhWWbhq9rLfuRWfg3QC/RVfXArOZw8mvzd58fOxOR\\n'\n    'R8gs7eZ6XIzge5C15dTl6bbdcn4+AZDkTzTU2wpmovNWQ2u8iiX73/6GW2v1h/Ql\\n'\n    'htaQWzLzysh8VcPB62mfVrEJjDYhlnWqDxcu7fvuYbYi2m9cD9GbQTqXNzyjU+zL\\n'\n    'A4u3zJUafMJrVQKyWmiFfVUx/uBXsdguzzrLUn1cf/nX5R5rOdIDrn0ddKL0me6/\\n'\n    'Z45+EhqywFuEmyqd4O8KbzFFel3/LSPKRMfKUFaZ7VQE/DwWT63ZUxoyrJLjxPk/\\n'\n    '-----END RSA PRIVATE KEY-----»\\n'\n",
    // comment #
    "# «-----BEGIN PRIVATE KEY-----\n# zs0MwntrNy4fcT5rvNmTlSEYSSIQuO30wc54BvYm+nI0skH6ME2gd5jyhNnGMocM\n# UO+r8vIBDOJ8GyOevy1uBtYPq0D1MZTvmH75/83sVlgaRutXEInste4PqbXyg5s8\n# vg+YWzgmFJC+SnN4HwKPHENzQ1fgW56sv8HRjG9Bc7VuOltWxw/iY0zEtqs3MwIs\n# r0bGJ1R1/hC4tVKmwrjY9CN96SFv+kamYKiHJoaFSxoPwqGOt+mxF2Xi23IEJCHx\n# BD+NRYUrOveGeQB8CXz2m+LJEWanjYJViTvXzKTJ8CSuyepuHSfSHlFE62rK/Pey\n# wblkDoY4yKIOUoq6kQi33FeSm7S8UWFMrrDnA14phqN7YdbFRcBJZGSdpngnV/o6\n# -----END PRIVATE KEY-----»\n",
    // comment //
    "// «-----BEGIN PRIVATE KEY-----\n// gBi7JmnwBkRiopLRF0r6NJbgdVEHET+wVvGmJSw6fCJF65BSsFGEJMBGn6sVaqi0\n// e4nCT+9iWqTZBTp9pp0BftMqcpZ0uH/+Xxw6drE2oFQNS0Vk7p5IeUsSkwtflvIo\n// +2UhXTlgK4Bx10iVrIfi/hKtBgQcb097IiRuO112urX3rvoSa7Ok7yF4nCbiBeJI\n// I+oqJub/sgrD3BG9nksFG7xMy/lSUQBKuxf/s55LXZZUOM/P92Rdyjgy/7dtl3F4\n// T865JvvWeDjaGGZDbLjN1vhcwV+01NMk6/b0uoj1Yy4BV4ZPWsYAJ/4JTnXuSgS0\n// XMrIAqzLrFZ8zRcn1JHCsHrBjynNbH5QeZF8rbzkvHpVlcY1YK6s02AB5rHwvscb\n// -----END PRIVATE KEY-----»\n",
    // kubectl logs prefix
    "[pod/api-7d9f8-x2x/app] «-----BEGIN RSA PRIVATE KEY-----\n[pod/api-7d9f8-x2x/app] YfNZ227kmpIIwYtI7YQQ7eTLkjb/XLlnuAvAcmueHjHai+AnuN03m392g/ldyX3O\n[pod/api-7d9f8-x2x/app] dW37fKA8+bjo3i09xQphnZjDkKa9U0yZrTFe1sjYfpWkvv8aRzoBT+UFhhOlOdTE\n[pod/api-7d9f8-x2x/app] 46lifPxjY3K68NQ+XM5rSV3rVydpNNmqDy79FMrKj4KkjkzwwyLfz2Hnf8k4w0Af\n[pod/api-7d9f8-x2x/app] 2oekgHK7o6gv+gDBW7STRy8Mig1TuEOavfxc8b4wv6RgMgiV1xONspRqr8SMrOhs\n[pod/api-7d9f8-x2x/app] Aob3a52SaFroPOVomCwC058oaf6SydTYIXrYNk8xQBsJyxtNRFGH3fCvLHNJEF8T\n[pod/api-7d9f8-x2x/app] o1FayauIJkoLbJR/uRoi2AxRq1UQRuwnsBkpZ2i2Du4W3lrg4Ajo78D4o3SVUIKB\n[pod/api-7d9f8-x2x/app] -----END RSA PRIVATE KEY-----»\n",
    // cat -A with tabs
    "«-----BEGIN RSA PRIVATE KEY-----$\np+9//WXt1spN5GeQrYj2WFhWbt5m5jUVWurKuTCmejhIHJSYxT4dn3ykMD2loq3X$\nOHs7j03tVPTk2N/xykdk7nW4M7p1oPN9F8dkhzLD2LJNhnyUDTCwooNlzfq4f77k$\nQ35ASJm8DPjv87g/ft5c6hPyjeDFEh6YGfav9HjAynRp+/sa35xSNInclhZz39Hu$\ntBrRqEBygQ2Lq5XaBDrPMHLQKBfaH46ZvR29Np+36pcOE1XrKa+iYTjBBxki2yz5$\nilB0V3aBA9yHwUBdF9IOASbYZvMq/3bOKR28g+D+Up8S7Pf0FSOm1sGte/Xk+yWZ$\nuI3oHeVU2dpvCIN92SFhDEEZCEE0gyPw7StPNVqo+TqwFW+EGr5dSErC8iRr6/mA$\n-----END RSA PRIVATE KEY-----»$\n",
    // crlf cat -A
    "«-----BEGIN PRIVATE KEY-----^M$\nRZgMoeZLE6/JIpgNSF3VxW0e+1KOSPEb7vVgjrAdunKn6QXYsGXDLDHNGGURTovX^M$\nG1DZYWo2/sW73G0FLult7JuO3FjkmlMLBfiqTK8JpabN8s8noOzSRyCH8rOqzhhQ^M$\nK9ykF07m755HaHyYgHTwDU3M5N25epHo8kziM7+Li9wL7DgIpmwdJqT4WChjA9Jm^M$\n19S/E3KBiR38ru36m+IUkObCC7wdt6hcMsHAdK8cKiPo9f+qqLj72M1Jea/TifBs^M$\nsqYVgV9otCFdEyqodPMkjHmLGVW6CjZv77obJaGHpDIyw6CEjGSdwi+eemXW3p6u^M$\nPs9VY+HcDZZ6hoPmbv0A7hue18d0tkpnc34NbBTk1GXCUjLKUSQTQlFYhf/AhoEx^M$\n-----END PRIVATE KEY-----»^M$\n",
];

/// Random values under names that say nothing, in a setting's place: INI, TOML, properties, XML attributes, headers, cookies, a prompt's `Value:`, Dockerfiles, GitHub Actions, `helm --set`, env files, YAML, JSON, PowerShell, `--session`, shells.
const VALUES_BY_POSITION: &[&str] = &[
    // ini neutral
    "[service]\nendpoint = https://api.example.com\nvalue = «2uUKYcLiSRFiz5WdNdWrAlJGMthavexA»\n",
    // ini s3cfg-ish neutral
    "[upstream]\nhost = api.example.com\ncred = «VvYvSgl6DY6qljwN6TbxSLDhH61g3MBuAWLTDA3j»\n",
    // toml neutral
    "[upstream]\nurl = \"https://api.example.com\"\nauth = \"«WW6SRKkVM8dpUSjZ4rV5XuR92LfV4PYQxqDv»\"\n",
    // toml neutral 2
    "[clients.billing]\nid = \"billing\"\ncode = \"«LqZ6Ai5lnBH2jklsadZK1NFzPZQIRR3fEv8bXkJ2»\"\n",
    // properties neutral
    "app.upstream.url=https://api.example.com\napp.upstream.signature=«wigMjywRF351f9K9mzwFWyrXv9HI2tgq5MQgLaARyNz9»\n",
    // xml attr neutral
    "<endpoint url=\"https://api.example.com\" code=\"«TCCgT04Kf8bv8tmj0ezfo0aoBnMdjaKs»\" />\n",
    // xml attr credential
    "<add name=\"Billing\" connectionString=\"Server=db;User Id=app;Password=«n45WXqDzlALTlsPwCGTp»;\" />\n",
    // header neutral
    "> GET /v2/items HTTP/1.1\n> Host: api.example.com\n> X-Custom-Auth: «WBqVTGldlw6Kdo2yEJcxhlT3jer6ogZJ9ImAZOm4»\n> Accept: */*\n",
    // header neutral 2
    "curl -H \"X-Client: «VuZdume4MQWwyDuKSUKp6tkzvQSU6PDGYDh0OVvE»\" https://api.example.com/v1/items\n",
    // cookie neutral
    "Cookie: sid2=«SetFlArHUzTE6BARevZlqQTCFCC2b8obVzDt4Z3I»; theme=dark\n",
    // cookie set neutral
    "Set-Cookie: a=«GJatzKICdc3jjgL4rHyVD2sCkCQ1OWfaBg8oasaxVF55wggK»; Path=/; HttpOnly; Secure\n",
    // prompt neutral 2
    "Value: «cHwwRJAzxwp7NS3CvkDGxH3UxRRQlBICr6XxG8kK»\n",
    // dockerfile env
    "FROM node:20\nENV SERVICE_URL=https://api.example.com\nENV UPSTREAM_SIG=«yvmJf70So0oKzNiif1POPPctBWoHTuxGX6Rh1XSd»\nRUN npm ci\n",
    // dockerfile arg
    "ARG BUILD_CODE=«yv9a5AQRBMGtcx4n1wMODBZibEzqBMNwsMR5zAah»\n",
    // gha env
    "jobs:\n  build:\n    env:\n      UPSTREAM_AUTH: «iaC1EDOCsb7gTaE5WdFuSEdKHoVPtOpBfsVgBson»\n      NODE_ENV: production\n",
    // gha with
    "      - uses: acme/deploy-action@v2\n        with:\n          endpoint: https://deploy.example.com\n          auth: «1bRZrrVE0kYWbQLd2DO7MHBg0fIewuFXEMl5Rf1D»\n",
    // helm set neutral
    "$ helm upgrade web ./chart --set replicas=2,upstream.code=«PbalzAXDi1GDR0IBvjb2Tlk4McHsUOhGcVv3l3UI»\n",
    "$ helm upgrade web ./chart --set upstream.auth=«PbalzAXDi1GDR0IBvjb2Tlk4McHsUOhGcVv3l3UI» --set replicas=2\n",
    // helm set-string
    "$ helm install x ./c --set-string global.sig=«ykSgSoA08YChDgT0jU5xvT4ojqhYLCpmChmSUSVW»\n",
    // env neutral
    "UPSTREAM_AUTH=«ReiodhLOfiTrJB7d0yP807GpsKdDTWQWORGhDw6y»\n",
    // yaml neutral
    "upstream:\n  url: https://api.example.com\n  auth: «ciY8WT5tIBHjPFlFYy8YsqB5nnsA1OotU7rGAwEp»\n",
    // json neutral
    "{\"upstream\": {\"url\": \"https://api.example.com\", \"auth\": \"«u0S8x7skCbQCHV8JZ9HpR5qIzpe7zAWwu7lID59P»\"}}\n",
    // powershell env
    "PS> $env:BW_SESSION = \"«/ByabkQ6J8+Ba4RxwuAhTPZy+/obToWKCKW/VSKhW2tV1LiOYbq9kpOy3mMxJVBdclO1A3XEdob1ejK0BRGNIA==»\"\n",
    // powershell env2
    "PS C:\\> $env:API_TOKEN=\"«KTIcU3CGB9u2mAAvHBxXnDOUHbVxGwVIF8LoAD78»\"\n",
    // bw --session
    "$ bw list items --session «/NSRqI+FGrmQre3hPsPGO0Gott9IR5iHxsEIBdc+hpk+T07SjS69gS1pES0716JZZxbDS7rAXrCWLyVtmzqlTA==»\n",
    // set windows
    "C:\\> set API_TOKEN=«pXQpiaJJk7GQEnoUnN3ygS3WJRQnT9Y6uBg7oHwF»\n",
    // fish set
    "set -gx API_TOKEN «mIplFCjspbUSbBNnATzqzEEnjbg3uxWs97BxzIoi»\n",
    // prompts answered on their line
    "? Enter your API key: «C3J27XDCG2LmlZGEONYlgCtjfIZ4SOcMz9CPVNPk»\n",
    "? Paste the token from the dashboard: «GsbeKXgzg2sye9b2Rann76dEyTzAeKOmXRrv»\n",
    "Enter the value for upstream auth: «ftva9AW7hipTgadDZFlRJmCGmUXiAPyh»\n",
    "Your new code: «zAnar3ZLt4bnlz2MPKgcjnCqaXNv1sye»\n",
    "[INFO] Generated credential: «efnLOpaMxxNDi9LE1Ki3ylOjt6o0NpUmkVO8JmR8»\n",
    // a cookie's name longer than any key, a prompt's label as long as it may be
    "Cookie: qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq_session=«7Kle0p5Dt5QwkGlka9qOk3hbEEHbX3v8LPkSnTfu»; theme=dark\n",
    "? Administrator-provisioned-credentials Previously-displayed-once Upstream-integration upstreamauthenticationcredentialvalue: «ICKbNz78t5vxD58at3sMBpSNrmlMUbKKLmajpigP»\n",
];

/// Look-alikes in the same places: identifiers, digests, versions, public
/// keys, placeholders, content. They stay.
const LEFT_ALONE: &[&str] = &[
    // image digest
    "image: nginx@sha256:de164aeb01b8d53dd404b775e405ddda35869814d5987036d8851fad4f932c8e\n",
    // cargo lock
    "[[package]]\nname = \"serde\"\nversion = \"1.0.200\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"7d2b7e19313cd4f9ad33c89d5f3dbb0dd70d65a4a7d1d47c561bbccb9b9f8f90\"\n",
    // integrity yaml
    "integrity: sha512-MXGz6bEDXaMeF5iHVruMDae9ABwLVtFG3oEWtjmibXnVEU/a9HcX5+cBDumarfhyuIbpX1k/9JfnHUYixZ3q8w==\n",
    // client id
    "client_id: 0oanzDXYKv6BvCrkxrL3\n",
    // nonce etag
    "nonce: rql51ZeKBtuaIhM1C9s9brL7\netag: W/\"4CHxR6s0WRtsTgvlgqTm9Kzu\"\n",
    // uid
    "metadata:\n  uid: 5bb31901-b919-4c97-b038-2678000cdc2b\n  resourceVersion: \"123456\"\n",
    // header ids
    "> X-Correlation-Id: 7n642xIaZaNJ4blJAbmEuNaI\n> Accept: */*\n",
    // gha cache key
    "      - uses: actions/cache@v4\n        with:\n          path: ~/.npm\n          key: ${{ runner.os }}-node-${{ hashFiles('**/package-lock.json') }}\n",
    // props build
    "app.build.number=20240501.1\napp.build.commit=f6fe51fb27d257ae6aa0c368ac4daabd6c2dbb73\n",
    // docker arg version
    "ARG NODE_VERSION=20.11.1\nARG BUILD_SHA=eJckvsrtexIAXFHJKzaJE0QHPGMwglSn\n",
    // helm digest
    "$ helm upgrade web ./chart --set image.tag=v1.2.3 --set image.digest=sha256:422911d237e90d9384cb7b1e38c1d9da7fa276a0845378bdc251610990dafd6a\n",
    // xml package ref
    "<PackageReference Include=\"Newtonsoft.Json\" Version=\"13.0.3\" />\n<script src=\"https://cdn.example.com/app.js\" integrity=\"sha384-F6BAdaLtjYcSlXqqXXv/ftqpy5k8/+JOW36m+dLQO43xTUstpWrtbSxuIEHKe4+S\" crossorigin=\"anonymous\"></script>\n",
    // xml meta csrf
    "<meta name=\"csrf-token\" content=\"fgQYTXmWpdckEcRGAbLeM8cidZGK7wTKCSqviHPS\">\n",
    // xml testid
    "<div data-testid=\"WMzvfvroTAXazp4qykbf\" class=\"btn btn-primary\">\n",
    // xml href asset
    "<link rel=\"stylesheet\" href=\"/assets/app-ny4ITofzs0z5Evbc6kHy.css\">\n",
    // firebase config
    "const firebaseConfig = {\n  authDomain: \"shop-prod.firebaseapp.com\",\n  projectId: \"shop-prod\",\n  storageBucket: \"shop-prod.appspot.com\",\n  messagingSenderId: \"123456789012\",\n  appId: \"1:123456789012:web:85171597d6b25a98f40373\",\n  measurementId: \"G-8TY2GMUYW8\"\n};\n",
    // poetry lock
    "[metadata]\nlock-version = \"2.0\"\npython-versions = \"^3.11\"\ncontent-hash = \"dfd389b5686239a5ef4b7b4b9757d2566f327f07ce85b721d9d4fa716e32aa7c\"\n",
    // git config
    "[remote \"origin\"]\n\turl = git@github.com:acme/shop.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n",
    // wandb run
    "run_id: brvzrpwt\nexperiment_id: BVZlYZIMhXtNsDSHDCLK\n",
    // salt
    "salt: 3EkjTr7MhNEW90mvh4FmZci0xqY68QC/\n",
    // bcrypt hash
    "hash: $2b$12$ryOr5c6XvBbzjdHF75brgVuW3QyMkpiR4LI9XGDwn5hNfvhPAjgm1\n",
    // k8s configmap
    "apiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: checkout,search\n",
    // json api ids
    "{\n  \"id\": \"46DPZnOE3pWZAM3zPyLn\",\n  \"node_id\": \"DnsSltogMyRCqzyMzQBU\",\n  \"sha\": \"aec774ef73f35b82cac2e6a4debdabefdce30fc9\",\n  \"url\": \"https://api.github.com/repos/acme/shop/commits/52ffd670cbcea772a18cde049ac8b3a235c91239\"\n}\n",
    // tsconfig
    "{\n  \"compilerOptions\": {\n    \"target\": \"ES2022\",\n    \"moduleResolution\": \"bundler\"\n  }\n}\n",
    // openapi operationId
    "paths:\n  /items:\n    get:\n      operationId: listItemsV2Paginated\n      summary: List the items\n",
    // placeholders pos
    "auth = \"<your-token-here>\"\ncode = \"${UPSTREAM_CODE}\"\nvalue: \"********************\"\nsig = xxxxxxxxxxxxxxxxxxxxxxxx\n",
    // css hashes
    ".button_primary__3xK9z { color: red; }\n",
    // trace
    "traceparent: 00-6e743c2ea7b9b8699c15ea400c412baa-0423fe2ed717c097-01\n",
    // jwk public yaml
    "jwk:\n  kty: EC\n  crv: P-256\n  x: 8fRGI0pLc5viqc9zYk2qiQepENtfuqJqI_sKgNqpL0g\n  y: DisVPhTcSZGURahKSdGDUlU1lGwb5p_vAM3s3TVijUI\n",
    // ssh pub
    "ssh_authorized_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMIRxAUPspDrHH9iS+R900oxuWYNJ4oJp+fAOhL9jUiA alice@host\n",
    // wireguard pub
    "[Peer]\nPublicKey = mXJDtrgUf/pPPXKnAdoZFug8FeBl7asNCZjuuDRX9s4=\nAllowedIPs = 10.0.0.2/32\nEndpoint = vpn.example.com:51820\n",
    // age recipient
    "recipients:\n  - age1mm295gt6wzr9xx3k283aycxweew32mhrfawws4y9ghpf24njgm00w60fm0\n",
    // go mod
    "module example.com/shop\n\ngo 1.22\n\nrequire github.com/google/uuid v1.6.0\n",
    // prose line start
    "Summary: the deploy finished after three retries\n",
    // labels that say what follows
    "Using cache key: npm-Linux-cf2d133187c8df95247f2866028de71159b42b4ea410fb9102f29a422eb14ab2\n",
    "Request ID: RE5e32A8Yb3FKaNQyyLaMeff\n",
    "Error: ECONNREFUSED connect 127.0.0.1:5432\n",
    "Branch: feature/add-JWT-support-2\n",
    "Restored from cache key: Linux-pnpm-store-fEbo9ShFXNQ6Fq5axtjR\n",
    // Cloudflare's ray id, a campaign tag, a long cookie name that says id
    "cf-ray: 8a1b2c3d4e5f6a7b-LHR\n",
    "{\"name\": \"cf-ray\", \"value\": \"8a1b2c3d4e5f6a7b-LHR\"}\n",
    "utm_content: xC5Ft2mx8K35kvjzITyvzEax\n",
    "Cookie: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb_cccccccccccccccccccc_visitor_id=I05HegbVPDhUQ8oOHvvRP6i9AgQrqhzw9Y7F8XKu; theme=dark\n",
];

/// What commands that read a secret store print, and tables whose header
/// names the column (`psql`, `az … -o table`, Markdown), or whose row's
/// label does (`psql`'s expanded rows).
const PRINTED: &[&str] = &[
    "$ vault kv get -field=password secret/prod/db\n«LkcN2W-TqyI4bC6dnk#1c^3T»\n",
    "$ vault kv get -mount=secret -field=api_key shop\n«XdnYcLxQlNnVxKW3x9KsQuKf0ElTELYCRPklZlIu»\n",
    "$ aws ssm get-parameter --name /prod/shop/stripe --with-decryption --query Parameter.Value --output text\n«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»\n",
    "$ aws ssm get-parameter --name /prod/shop/db-password --with-decryption\n{\n    \"Parameter\": {\n        \"Name\": \"/prod/shop/db-password\",\n        \"Type\": \"SecureString\",\n        \"Value\": \"«EGm1vb4R1v0iE+L20M=g»\",\n        \"Version\": 3\n    }\n}\n",
    "$ kubectl get secret shop-db -o jsonpath='{.data.password}' | base64 --decode\n«KndrQ3FvkR+oE85IaRWdsZ»\n",
    "$ kubectl get secret shop-api -o go-template='{{.data.token | base64decode}}'\n«nYRblPCVB9fASrEMSIUJlHItq5fo4d34FyXbRDMA»\n",
    "$ security find-generic-password -s shop-deploy -a ci -w\n«LO0SMJRuXf19=G_JlXBHs%Vo»\n",
    "$ gcloud secrets versions access latest --secret=shop-signing-key\n«nnb9HkeQxXEB2wlCyNkcP8P7kKJ4CmjOFEYzXJAln9Y=»\n",
    "$ az keyvault secret show --vault-name shop-kv --name DbPassword --query value -o tsv\n«lx^YULkvfpxcrrL8LgfnPd»\n",
    "PS C:\\src\\shop> Get-Secret -Name StripeKey -AsPlainText\n«iwfk2nn9BuWNoIL28BQxIPoVJ7VtD4Q9OiwyXt17»\n",
    "PS /home/dev> (Get-AzKeyVaultSecret -VaultName shop-kv -Name DbPassword -AsPlainText)\n«f!YSA_uAO02hfO28u1UF»\n",
    "+ vault kv get -field=token secret/ci\n«hvs.9ucQsC0lz0xKF9bI5NOB0Ml6»\n",
    "● Bash(vault kv get -field=password secret/prod/db)\n  ⎿  «4y3i6aYWGhe1XSIvsi^7+p»\n",
    "$ pulumi config --show-secrets --json\n{\n  \"shop:dbPassword\": {\n    \"value\": \"«i28sNpc*A_zSNIK3#++L»\",\n    \"secret\": true\n  },\n  \"aws:region\": {\n    \"value\": \"eu-west-1\",\n    \"secret\": false\n  }\n}\n",
    "$ terraform output -json | jq -c\n{\"db_password\":{\"sensitive\":true,\"type\":\"string\",\"value\":\"«RcCtiroNGokke9e^HI+1»\"},\"endpoint\":{\"sensitive\":false,\"type\":\"string\",\"value\":\"db.example.com\"}}\n",
    "api_keys = [\n  \"«OPa46m6VQUReQ0il1nFdVQ5jq7aMZyWc»\",\n  \"«KWKAZcObijYawPL8GJ5Aa2FfDusQTNc1»\",\n]\n",
    "$ az storage account keys list -n shopstore -o table\nCreationTime                      KeyName    Permissions    Value\n--------------------------------  ---------  -------------  ------------------------------------------------------------------------------------------\n2024-05-01T10:00:00.000000+00:00  key1       FULL           «KjVOzdfLHSQoI9GVq/kcndZtwIEyzyuFrYmll5nu5Mw01hBEqJkZ0pW3zvPW6sAgHYJuWxA0rYBg+1XEzxm2Pw==»\n2024-05-01T10:00:00.000000+00:00  key2       FULL           «JV6h4mx1NyiPjMs/VQmQl/n9GMYhvN0nEY9fowjCCXLRDSnt40NZvTR2tMesVkwXzW3pesrKGmeIqmBgpLsELA==»\n",
    "{\n  \"primaryKey\": \"«kOGm8REGCdvtx1SxJRvZu6vFp6DZ9lXyZKLy7LMkaEw=»\",\n  \"secondaryKey\": \"«IIdGhYvzmKLPn5GfofKDZqy9LZlEZ7lWuifQAuRWyUw=»\"\n}\n",
    "primaryConnectionString: Endpoint=sb://shop.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«jBThfHpZt+0Nx2mqwdgURi0dBJycOuf8XWzl4tU+mhc=»\n",
    "Recovery Key 1: «0KCGsUJB8e0z+TavLPuJ+/slfbpSvsW7aFZeiziWbdm+»\nRecovery Key 2: «Db9g5VCXyrwdEA8gHS8d3m9I3SBaKxnnq11VS5Lev890»\n",
    "# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1767225600\tsession_token\t«6UNn2KWz5MVMsGcXPYkUO1c0DIzOPciEaUx6Y2OC»\n",
    "[\n  {\n    name: 'connect.sid',\n    value: '«s%3AXoI4jQTmTcr4ZKmhtFL4WaZrqFHEl2NB.AYmhTn7ya3Ah9V3rlr10onpaORsGmAf9lAmm6cZI5ne»',\n    domain: 'shop.example.com',\n    path: '/',\n    httpOnly: true\n  }\n]\n",
    "{\"name\": \"cookie\", \"value\": \"theme=dark; sessionid=«ubalxcvkbgasuke4oxf43ordx5iagdmg»\"}\n",
    "psql (16.2)\nshop=> \\x\nExpanded display is on.\nshop=> select * from api_clients limit 1;\n─[ RECORD 1 ]─┬──────────────────────────────────────────\n id           │ 7\n name         │ billing\n secret       │ «fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc»\n created_at   │ 2024-05-01 10:00:00+00\n",
    "$ kubectl view-secret shop-db password\n«Q*=%w!UlAKONLC1EehjPYW»\n",
    "$ kubectl view-secret shop-db --all\nhost='db.internal'\npassword='«0Cl^uCz2o+l5g9IjXm-CeR»'\nusername='app'\n",
    " id |  name   |                  token\n----+---------+------------------------------------------\n  7 | billing | «fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc»\n  8 | search  | «Xk7pQ2vN9mL4wR8tY3cB6hJ1dF5gXk7pQ2vN9m»\n(2 rows)\n",
    " id │  name   │                  api_key\n────┼─────────┼──────────────────────────────────────────\n  7 │ billing │ «fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc»\n",
    "| Service | Token |\n|---|---|\n| billing | «fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc» |\n",
    " id |  name   |  password\n----+---------+-----------\n  7 | alice   | «hunter2-Pass»\n",
    " code         │ «fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc»\n",
    "-[ RECORD 1 ]-+------\n id           | 7\n secret       | «fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc»\n",
];

/// What the same commands print that is no secret (a host, a user, a path,
/// a number, an id), analytics and consent cookies, and columns that say
/// what they hold.
const PRINTED_NOT: &[&str] = &[
    "$ vault kv get -field=url secret/app\nhttps://api.example.com/v2\n",
    "$ op read op://Private/Shop/username\nalice@example.com\n",
    "$ aws ssm get-parameter --name /app/db/host --query Parameter.Value --output text\ndb-7f3a9c.internal.example.com\n",
    "$ gcloud secrets versions access latest --secret=db-port\n5432\n",
    "$ kubectl get secret db -o jsonpath='{.data.username}' | base64 -d\napp_user_7\n",
    "$ doppler secrets get LOG_LEVEL --plain\ninfo\n",
    "$ aws secretsmanager get-secret-value --secret-id prod/bucket --query SecretString --output text\nshop-assets-prod-eu-west-1\n",
    "$ op read op://Private/Shop/website\nshop.example.com\n",
    "$ vault kv get -field=path secret/app\n/var/lib/app/data\n",
    "$ pulumi stack output bucketName\nshop-assets-a5cc8f7\n",
    "$ terraform output -raw db_endpoint\ndb.cluster-62k9ub8gxsmy.us-east-1.rds.amazonaws.com\n",
    "$ terraform output -raw instance_id\ni-0a1b2c3d4e5f67890\n",
    "$ terraform output -raw vpc_id\nvpc-0a1b2c3d4e5f67890\n",
    "$ gh api user --jq .node_id\nMDQ6VXNlcjU4MzIzMQ==\n",
    "$ aws sts get-caller-identity --query Account --output text\n123456789012\n",
    "$ kubectl get secret tls -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -fingerprint\nSHA256 Fingerprint=AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89\n",
    "Cookie: _ga=GA1.1.1234567890.1700000000; _gid=GA1.2.987654321.1700000000; _fbp=fb.1.1700000000000.1234567890\n",
    "Cookie: ajs_anonymous_id=%225bb31901-b919-4c97-b038-2678000cdc2b%22; _gcl_au=1.1.1234567890.1700000000\n",
    "cookie: _hjSessionUser_123456=eyJpZCI6IjViYjMxOTAxLWI5MTktNGM5Ny1iMDM4LTI2NzgwMDBjZGMyYiIsImNyZWF0ZWQiOjE3MDAwMDAwMDAwMDB9; _clck=1x2y3z%7C2%7Cfh4%7C0%7C1500\n",
    "Set-Cookie: __stripe_mid=5bb31901-b919-4c97-b038-2678000cdc2b; Path=/; Max-Age=31536000\n",
    "Set-Cookie: optimizelyEndUserId=oeu1700000000000r0.8417; Path=/\n",
    "Set-Cookie: mp_0a1b2c3d4e5f67890a1b2c3d4e5f6789_mixpanel=%7B%22distinct_id%22%3A%20%22alice%22%7D; Path=/\n",
    "[\n  {\n    name: '_ga',\n    value: 'GA1.1.1234567890.1700000000',\n    domain: '.example.com',\n    path: '/',\n    expires: 1734567890,\n    httpOnly: false\n  }\n]\n",
    ".example.com\tTRUE\t/\tFALSE\t1734567890\t_ga\tGA1.1.1234567890.1700000000\n.example.com\tTRUE\t/\tFALSE\t1734567890\t_gid\tGA1.2.987654321.1700000000\n",
    "{\"name\": \"_ga\", \"value\": \"GA1.1.1234567890.1700000000\", \"domain\": \".example.com\"}\n",
    "-[ RECORD 1 ]-+------------------------\nid            | 42\nname          | alice\nemail         | alice@example.com\ncreated_at    | 2024-05-01 10:00:00+00\n",
    "$ kubectl view-secret db\nMultiple sub keys found. Specify another argument, one of:\n-> host\n-> port\n-> username\n",
    "$ kubectl view-secret db host\ndb.prod.svc.cluster.local\n",
    "$ vault kv get -field=username secret/db\nsvc_shop_reader\n",
    "$ echo $DATABASE_HOST\ndb-primary-7.internal\n",
    "$ printenv HOSTNAME\nweb-7d9f8b6c5-x2x4q\n",
    "$ printenv API_TOKEN_FILE\n/run/secrets/api_token\n",
    "PS> $env:API_TOKEN\n********\n",
    "  Bash(op read op://dev/app/region)\n  ⎿  eu-west-1\n",
    "+ vault kv get -field=port secret/db\n5432\n",
    " id |  name   |                  checksum\n----+---------+------------------------------------------\n  7 | billing | fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc\n",
    "REPOSITORY   TAG       IMAGE ID       CREATED       SIZE\n----------   ---       --------       -------       ----\nnginx        latest    3f2a1b9c8d7e   2 days ago    187MB\n",
    "request_id   fp8i2fS2CHrFFGTZZc3cJQkauG0NE20aKzpuMLQc\n",
    "NAME                 READY   STATUS    RESTARTS   AGE\nweb-7d9f8b6c5-x2x4q   1/1     Running   0          5d\n",
];

/// Values a terminal wrapped at its width, or a box table wrapped onto the
/// rows below (their other cells blank): the rest masked where it goes on.
const WRAPPED: &[&str] = &[
    "export API_TOKEN=«NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnArl63XykWZeiNNCiia3anXn9k3ks»\n«u9mI4ROnl89Sm995ytbxAk7jqevt0MLaMRTve»\n",
    "Authorization: Bearer «eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsI»\n«mV4cCI6MTcwMDAwMDAwMH0.tw0tESulEETldq8b8Vw2zbJYAxyL1aCcTlN99mhWp70»\n",
    "┌────────────┬──────────────────────────────────┐\n│ NAME       │ VALUE                            │\n├────────────┼──────────────────────────────────┤\n│ STRIPE_KEY │ «sk_live_51HqLyjWDarjtT1zdp7dcXk7» │\n│            │ «pQ2vN9mL4wR8tY3cB6hJ1dF5gXk7pQ2v» │\n│            │ «N9mL4wR8tY3cB6»                   │\n│ LOG_LEVEL  │ info                             │\n└────────────┴──────────────────────────────────┘\n",
];

/// Lines after a value that only look like its rest: the next word a tool
/// printed, a value line narrower than a terminal, the next row's own
/// label.
const NOT_WRAPPED: &[&str] = &[
    "export API_TOKEN=«NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnArl63XykWZeiNNCiia3anXn9k3ks»\nDone\n",
    "export API_TOKEN=«NqVwYS81VP7Hb1DX8pPd5khxE3pyIgKpaUnArl63XykWZeiNNCiia3an»\nu9mI4ROnl89Sm995ytbxAk7jqevt0MLaMRTve\n",
    "│ STRIPE_KEY │ «sk_live_51HqLyjWDarjtT1zdp7dcXk7» │\n│ REGION     │ eu-west-1                        │\n",
];

#[test]
fn json_web_keys_as_tools_print_them() {
    check(JSON_WEB_KEYS);
}

#[test]
fn xml_keys_in_configs_and_strings() {
    check(XML_KEYS);
}

#[test]
fn openvpn_keys_inline_and_numbered() {
    check(OPENVPN_KEYS);
}

#[test]
fn key_dumps_of_other_sizes() {
    check(KEY_DUMPS);
}

#[test]
fn key_blocks_under_other_decorations() {
    check(DECORATED_BLOCKS);
}

#[test]
fn random_values_in_a_settings_place_whatever_the_name() {
    check(VALUES_BY_POSITION);
}

#[test]
fn look_alikes_in_those_places_stay() {
    check(LEFT_ALONE);
}

#[test]
fn what_secret_stores_and_tables_print_is_masked() {
    check(PRINTED);
}

#[test]
fn what_they_print_that_is_no_secret_stays() {
    check(PRINTED_NOT);
}

#[test]
fn wrapped_values_are_masked_where_they_go_on() {
    check(WRAPPED);
}

#[test]
fn what_only_looks_like_a_wrapped_value_stays() {
    check(NOT_WRAPPED);
}

//! The classes of issue 51, each a table of texts with what must be masked
//! between `«` and `»` (everything else must come out as it went in): private
//! keys by their structure in other encodings, decorations read through,
//! names, references, public values and documented examples left alone, and
//! random values in credential positions. Every text is also streamed, cut at
//! every byte and one character at a time: always the whole text's output.
//!
//! The values are random, shaped like the real formats: none is a live
//! credential (the documented examples are the vendors' own, published).

mod support;

use support::check;

/// What stands in for a secret, or only names or refers to one: never
/// masked (`src/detect/placeholders.rs`, the names in
/// `src/detect/assignments/names.rs`).
const LEFT_ALONE: &[&str] = &[
    // Secret stores' references.
    "DB_PASSWORD=op://Production/Postgres/password\nGITHUB_TOKEN=\"op://dev/GitHub/token\"\n",
    "password: ref+vault://secret/data/myapp#/password\ntoken: ref+awsssm://prod/api/token\n",
    "env:\n  - name: AWS_SECRET_ACCESS_KEY\n    value: vault:secret/data/accounts/aws#AWS_SECRET_ACCESS_KEY\n",
    "\"DbPassword\": \"@Microsoft.KeyVault(SecretUri=https://myvault.vault.azure.net/secrets/DbPassword/ec96f02080254f109c51a1f14cdb1931)\",",
    "DB_PASSWORD=@Microsoft.KeyVault(VaultName=myvault;SecretName=DbPassword)",
    "api_key: https://myvault.vault.azure.net/secrets/ApiKey\n",
    "password: arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-password-AbCdEf\n",
    "{\"ARN\": \"arn:aws:secretsmanager:us-east-1:123456789012:secret:MyTokenSecret-a1B2c3\", \"Name\": \"MyTokenSecret\"}",
    "token: projects/my-project/secrets/api-token/versions/latest\n",
    "spring.datasource.password=${sm://db-password}\nspring.mail.password=sm://mail-password\n",
    "set DB_PASSWORD=%DB_PASSWORD%\npassword: $(DB_PASSWORD)\nSECRET_KEY=${SECRET_KEY}\n",
    "          token: ${{ secrets.DEPLOY_TOKEN }}\n          password: ${{ secrets.DB_PASSWORD }}\n",
    // Names of Kubernetes Secrets, not their values.
    "auth:\n  existingSecret: my-db-secret\n  existingSecretPasswordKey: password\n  secretName: postgres-credentials-v2\n",
    "        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: db-credentials-prod\n              key: password\n",
    "global:\n  postgresql:\n    auth:\n      existingSecret: pg-auth-9f8e7d\n",
    // Ciphertext made to be shown: a SealedSecret's `encryptedData`.
    "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: db\nspec:\n  encryptedData:\n    password: AgBy3i4OJSWK+PiTySYZZA9rO43cGDEqAhSgXzlFUm+3v2Qf1V0==\n    api-key: AgCtr8VZ1tE2pWH9Lr0QAgYyn3kq3tZ8Q5eYk0X4mA==\n",
    // Paging tokens.
    "GET /subscriptions/x/resources?api-version=2021-04-01&$skiptoken=eyJuZXh0TWFya2VyIjoiMjEyMzQ1Njc4OTAifQ HTTP/1.1",
    "\"nextLink\": \"https://management.azure.com/subscriptions/x/resources?api-version=2021-04-01&%24skiptoken=ZXlKdVpYaDBUV0Z5YTJWeUlqb2lNaTR3TVRJek5EVTJOemc1TUNKOQ\"",
    "$ aws s3api list-objects-v2 --bucket b --starting-token eyJDb250aW51YXRpb25Ub2tlbiI6IG51bGx9",
    // Documented examples, exactly as published.
    "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "JWT_SECRET=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiYWRtaW4iOnRydWUsImlhdCI6MTUxNjIzOTAyMn0.KMUFsIDTnFmyG3nMiGM6H9FNFUROf3wh7SmqJp-QV30",
    "const stripe = require('stripe')('sk_test_4eC39HqLyjWDarjtT1zdp7dc');\nconst stripePromise = loadStripe('pk_test_TYooMQauvdEDq54NiTphI7jx');",
    "curl https://api.stripe.com/v1/charges -u sk_test_BQokikJOvBiI2HlWgH4olfQ2:\nStripe.setPublishableKey('pk_test_6pRNASCoBOKtIshFeQd4XMUh');",
    "curl -s --user 'api:key-3ax6xnjp29jd6fds4gc373sgvjxteol0' https://api.mailgun.net/v3/samples.mailgun.org/messages",
    "bootstrapTokens:\n- groups:\n  - system:bootstrappers:kubeadm:default-node-token\n  token: abcdef.0123456789abcdef\n  ttl: 24h0m0s\n",
    // Local defaults, the images' documented ones too.
    "password: postgres\nDB_PASSWORD=changeme\npassword: example\nMYSQL_ROOT_PASSWORD=root\n",
    "docker run -e POSTGRES_PASSWORD=mysecretpassword -d postgres\ndocker run -e MYSQL_ROOT_PASSWORD=my-secret-pw -d mysql\n",
    "MINIO_ROOT_USER=minioadmin\nMINIO_ROOT_PASSWORD=minioadmin\nkeystore password: notasecret\n",
    // Identifiers, not credentials: an access key id with no secret beside
    // it, IAM unique ids.
    "{\n    \"AccessKeyMetadata\": [\n        {\n            \"UserName\": \"alice\",\n            \"AccessKeyId\": \"AKIAZ7GQW3VHTLX4JK5M\",\n            \"Status\": \"Active\",\n            \"CreateDate\": \"2024-01-10T12:00:00+00:00\"\n        },\n        {\n            \"UserName\": \"alice\",\n            \"AccessKeyId\": \"AKIAQ2MNB7RTLX4JKW3P\",\n            \"Status\": \"Inactive\",\n            \"CreateDate\": \"2023-02-11T09:30:00+00:00\"\n        }\n    ]\n}\n",
    "AccessKeyMetadata:\n- AccessKeyId: AKIAZ7GQW3VHTLX4JK5M\n  CreateDate: '2024-01-10T12:00:00+00:00'\n  Status: Active\n  UserName: alice\n",
    "ACCESSKEYMETADATA\tAKIAZ7GQW3VHTLX4JK5M\t2024-01-10T12:00:00+00:00\tActive\talice\n",
    "$ aws iam update-access-key --access-key-id AKIAZ7GQW3VHTLX4JK5M --status Inactive --user-name alice\n",
    "{\"UserId\": \"AIDAZ7GQW3VHTLX4JK5MQ\", \"Account\": \"123456789012\", \"Arn\": \"arn:aws:iam::123456789012:user/alice\"}",
];

/// Secrets beside or near what the rules above leave alone: still masked.
const STILL_MASKED: &[&str] = &[
    "{\n    \"AccessKey\": {\n        \"UserName\": \"alice\",\n        \"AccessKeyId\": \"«AKIAZ7GQW3VHTLX4JK5M»\",\n        \"Status\": \"Active\",\n        \"SecretAccessKey\": \"«u39/LESzCtv7XhxLhEhHqkJbmgXGRimqhZXMT7q0»\",\n        \"CreateDate\": \"2024-01-10T12:00:00+00:00\"\n    }\n}\n",
    "{\"Credentials\": {\"AccessKeyId\": \"«ASIAZ7GQW3VHTLX4JK5M»\", \"SecretAccessKey\": \"«u39/LESzCtv7XhxLhEhHqkJbmgXGRimqhZXMT7q0»\", \"Expiration\": \"2026-11-30T18:00:00Z\"}}",
    "[default]\naws_access_key_id = «AKIAZ7GQW3VHTLX4JK5M»\naws_secret_access_key = «u39/LESzCtv7XhxLhEhHqkJbmgXGRimqhZXMT7q0»\n",
    "AWS_ACCESS_KEY_ID=«AKIAZ7GQW3VHTLX4JK5M»\nthe key «AKIAZ7GQW3VHTLX4JK5M» leaked\n",
    "stripe.api_key = \"«sk_test_4eC39HqLyjWDarjtT1zdp7dX»\"\n",
    "auth:\n  clientSecret: «q8XnZ2LvR5tKw3PmB7yHc1Fd»\n  existingSecret: db-auth\n",
    "password: «vault-Xk9-harbor»\nop_token: «ops://Xk9harbor»\n",
    "apiVersion: v1\nkind: Secret\ndata:\n  password: «AgBy3i4OJSWK+PiTySYZZA9rO43cGDEqAhSgXzlFUm+3v2Qf1V0==»\n",
];

/// Private keys in other encodings than PEM: `openssl … -text` dumps, JSON
/// Web Keys, .NET's XML, OpenVPN's static and tls-crypt-v2 keys. The
/// private parts are masked, the public ones stay.
const PRIVATE_KEYS: &[&str] = &[
    "$ openssl rsa -in key.pem -text -noout\nPrivate-Key: (1024 bit, 2 primes)\nmodulus:\n    00:dd:20:8f:ef:7b:13:3b:07:1e:9b:69:35:0b:09:\n    c8:a4:a1:ce:83:c3:da:ef:c3:b9:5f:25:2a:2f:cb:\n    e8:09:49:d7:5a:ee:ea:36:a1:56:a7:32:44:54:f1:\n    26:38:62:8c:34:79:c9:6d:ff:69:2e:81:0d:6e:21:\n    c2:b1:85:cb:27:a4:b1:de:4f:70:44:5d:83:1c:1a:\n    ae:0f:22:50:72:d5:ab:d3:20:ec:95:2a:76:1d:34:\n    12:20:44:f0:3c:a5:d8:c0:40:68:11:34:19:fa:02:\n    93:67:73:67:4b:3c:83:ce:17:14:7d:4d:e6:a1:98:\n    9a:59:ec:4c:4b:93:38:22:d7\npublicExponent: 65537 (0x10001)\nprivateExponent:\n    «00:c5:a7:59:81:22:6d:ea:11:4f:16:73:4f:ea:71:\n    f0:5a:d8:17:14:48:78:e6:5f:f8:ce:47:16:12:6b:\n    1d:19:50:5b:a2:f8:73:7a:29:74:9f:36:9b:45:a1:\n    d8:1c:06:5a:74:7d:77:c3:4e:cd:e1:b7:91:1d:a4:\n    27:b7:2e:74:8b:6d:3a:83:ea:37:96:64:04:f3:a1:\n    fe:d2:be:c9:5d:67:eb:60:c1:c0:11:1f:97:42:88:\n    07:f3:df:a7:08:21:77:93:53:b6:d7:a7:a5:4b:c6:\n    8b:1e:d0:7b:3b:54:04:6c:73:a5:43:c8:fd:39:dd:\n    cf:03:53:b0:3a:c9:4b:07:e1»\nprime1:\n    «00:f8:62:0f:e0:c4:67:9f:7a:dc:99:67:83:3b:8e:\n    2d:6c:da:8a:a3:a9:72:22:ee:45:7b:99:1e:d4:36:\n    9b:58:64:0a:e5:4f:f8:d5:12:2f:fd:1b:68:9c:54:\n    23:db:57:cb:06:93:cf:bb:36:f2:0c:67:05:7c:72:\n    63:78:b5:5f:93»\nprime2:\n    «00:e3:e8:87:01:1b:47:8c:90:ce:64:e4:ea:57:3e:\n    9b:af:da:b3:be:71:65:12:5d:e5:e1:fe:c4:0d:0e:\n    8c:f8:80:a9:59:94:d2:04:f3:2e:ac:8d:09:30:b4:\n    88:8e:65:0c:61:96:29:f4:15:1c:a1:1e:e3:eb:e4:\n    d2:31:aa:12:2d»\nexponent1:\n    «60:2a:a7:77:20:d3:f5:fd:3d:b7:ef:49:f2:1f:04:\n    1b:67:29:d2:5f:e2:9e:ff:9d:cb:52:e7:8a:c6:71:\n    b2:f1:58:fe:9b:cd:fd:c1:02:ef:7e:53:2c:63:af:\n    56:57:51:76:04:78:a3:45:8c:c5:9c:85:95:3f:3c:\n    a0:19:a9:1d»\nexponent2:\n    «12:ac:a8:f3:44:42:f6:97:9e:f1:d1:78:0a:32:0d:\n    1b:b9:b5:e4:b2:f1:ef:31:56:76:d0:23:4c:56:96:\n    e2:7d:d8:62:88:b9:34:c2:a0:5e:6f:28:03:9f:a7:\n    58:d3:9a:d2:1c:35:cf:d4:33:06:58:bb:a0:46:9d:\n    9a:88:2e:f9»\ncoefficient:\n    «2f:72:7b:1e:a8:fe:62:f5:f3:9e:48:73:08:3c:bd:\n    c7:ba:ab:ff:6e:71:8d:c2:a9:71:e3:aa:98:65:84:\n    61:dc:66:42:de:ba:39:91:be:67:fa:f7:0d:6f:41:\n    15:d1:40:f5:63:cd:e5:78:6d:0b:5b:94:cb:fb:8f:\n    c2:97:9c:e6»\n",
    "$ openssl ec -in ec.pem -text -noout\nread EC key\nPrivate-Key: (256 bit)\npriv:\n    «da:f0:67:3d:da:91:02:bd:16:e3:b8:76:df:65:a7:\n    ea:ba:ef:d4:39:bb:f9:65:10:43:23:69:4c:65:c0:\n    f9:7b»\npub:\n    04:f5:81:87:87:ed:ae:01:58:47:7c:56:4d:c2:91:\n    2a:73:23:f5:42:a6:63:18:75:92:66:80:a0:db:43:\n    53:da:2d:93:59:3e:13:9d:d0:a1:a8:92:67:a3:dc:\n    91:01:b6:e4:60:0d:dd:7c:28:fe:15:b7:d1:15:d1:\n    f7:e0:15:52:9c\nASN1 OID: prime256v1\nNIST CURVE: P-256\n",
    "ED25519 Private-Key:\npriv:\n    «a2:88:9c:f9:d7:2d:f2:1c:ab:f6:f0:ec:9b:c6:13:\n    a8:b5:fe:5d:21:55:b8:03:93:70:67:eb:5e:69:31:\n    f2:71»\npub:\n    5b:b1:02:b9:e0:7c:ff:7d:67:ef:f8:20:48:61:d9:\n    c0:24:40:30:b9:02:1b:59:1f:cc:ce:e4:79:0e:e5:\n    87:6a\n",
    "Private-Key: (1024 bit)\npriv:\n    «00:91:01:89:4e:82:f0:06:a2:f0:77:66:20:1f:57:\n    0a:1e:a2:d5:91:18:dd:f0:b2:09:40:cb:09:8f»\npub: \n    76:ee:69:fc:d1:b4:65:b4:d6:5b:69:ad:8f:4e:ad:\n    4d:40:de:a5:b3:91:ce:7a:7c:6f:60:96:af:1a:fb:\n    bc:2d:dc:01:d3:5b:86:c9:b9:b8:80:90:4f:f6:a6:\n    1c:04:aa:f8:12:fb:48:fa:12:a2:01:c4:8d:8f:4d:\n    6b:a7:c1:95:d0:2f:40:cb:f5:f4:0f:63:ba:69:ab:\n    43:90:35:ff:c1:ce:6e:bf:f6:1a:74:99:b9:03:2a:\n    ef:46:19:c0:88:f8:a3:20:fe:36:90:5a:ab:94:e6:\n    ac:bb:a9:f1:a6:02:19:87:e9:43:fd:3d:ed:aa:18:\n    b9:21:4b:05:29:f8:8a:34\nP:   \n    00:c6:2d:6d:27:c6:cf:1f:3c:69:9a:3b:d6:45:32:\n    49:f5:2b:d5:f2:b7:b9:a0:92:5f:0f:ed:ef:98:05:\n    3d:5f:fd:c5:f1:82:48:d0:94:db:9f:50:2d:cb:d8:\n    54:e8:c9:d7:cf:e1:ad:d2:41:80:cd:8c:21:c6:bf:\n    91:45:10:a6:ea:62:e4:c9:53:0d:aa:bc:4d:3f:04:\n    17:7e:95:d7:47:29:29:78:b9:9e:42:61:93:5a:ad:\n    72:7e:3d:4d:3b:8a:70:d8:2e:d2:09:3c:af:86:21:\n    9d:1f:a2:7d:88:dd:b0:4c:51:86:c0:18:10:2b:e5:\n    c5:c6:a6:b2:47:79:8f:c5:c5\nQ:   \n    00:f4:5f:19:9f:56:71:c5:29:94:1d:8a:cd:35:45:\n    d0:5b:4d:50:a7:d0:7a:36:84:dc:31:d6:f3:87\nG:   \n    00:88:4f:05:14:11:90:51:97:5e:84:9d:50:e4:84:\n    2d:fb:45:eb:24:25:a1:61:87:01:df:b1:4a:7c:87:\n    44:18:3f:08:f0:5e:43:d5:de:e2:82:a3:4a:b9:95:\n    ee:f1:b4:08:3a:94:09:81:e9:93:09:a7:d4:b8:21:\n    ab:1f:72:de:49:f5:55:15:9f:84:c2:68:ba:d6:c8:\n    ce:c6:99:ef:21:7f:76:08:16:3e:07:cf:71:ba:74:\n    9c:83:ff:e6:7c:c1:be:c2:0e:20:ef:95:ab:b5:18:\n    46:ac:9c:83:f1:e7:0e:9b:fb:ca:01:bf:cf:95:85:\n    10:05:66:d1:17:89:2b:10:f0\n",
    "X25519 Private-Key:\npriv:\n    «40:02:91:3b:60:62:c9:38:c1:1c:a5:6e:cf:7e:06:\n    aa:7f:35:74:b1:7e:f5:ae:25:f7:3f:39:69:cd:f9:\n    dd:4f»\npub:\n    89:79:81:46:36:9d:0b:5a:bc:80:d7:62:b7:05:b6:\n    77:22:5f:0c:83:fa:e2:33:20:21:a6:2e:d8:2f:71:\n    c7:1f\n",
    "DH Private-Key: (512 bit)\nprivate-key:\n    «36:bc:86:62:3f:5b:bf:ae:49:4d:ba:d9:51:4a:45:\n    c4:c7:75:50:8f:59:c4:29:4f:b0:a1:af:70:19:c2:\n    32:61:8e:78:bf:9a:6f:b0:a2:f2:d2:f9:b1:9d:28:\n    73:17:65:1e:be:5e:b2:62:a4:d2:e6:36:b5:93:ae:\n    7b:ac:3d:c6»\npublic-key:\n    6c:26:c5:1f:a7:f5:75:67:6d:4f:8c:81:36:f8:17:\n    4c:75:67:1e:de:ca:f3:29:e8:70:df:e2:90:0d:67:\n    5f:5d:1e:e3:30:74:fe:e9:a8:b7:d7:23:cb:72:d9:\n    5e:af:7f:14:9b:ea:6f:ac:6c:25:d0:15:9b:a8:ab:\n    1e:58:0c:1e",
    "$ cat jwk.json\n{\n  \"kty\": \"RSA\",\n  \"n\": \"v0kNrw3dp1EY1muf9GP5ThNi-V5HN11XzFEjMMgenJ_YlXcdWq36_5EemcMIAy8Ki2F_jUUQclVeLAvC9-mp4mbPvU3fbCE7FjsHhD_whJxa7-efdEA0lTNqHUSohgJhp31pys3XVV8ba6sBhczVggAmr4HO-9SMPAm1PbTQNds\",\n  \"e\": \"AQAB\",\n  \"d\": \"«tqPbE-0KWYp-S6VBegjG7rxmATH6j6tpfGVwU1CQof2hv7yW45FBGioG7MuiZ9_PkpvKPSnXdUN7glTMmQebMzET4PvHNJQXr5LIxEE_wRmk3pB0du6TsmOPjB2xG3paYwYXXgQp3_rsUrH8T4ONFj8k5ID268AaGaxZxjXimVk»\",\n  \"p\": \"«5cJuZRoli-byPXgDKXsTIENJIGcM1KhiKX5oCvuQjHL9vUDaGEpckhV3PUwShfvzkTo_lXceE6TTvqhfOqRNfQ»\",\n  \"q\": \"«1SG9KEnBjEpV6o1Nlsm-LcTBxy_-xiA8UgSuZn8nfzYf7ZHGJse9ZBCpqaB7PiAK6GqHt7OQqj52bykWTCbQNw»\",\n  \"dp\": \"«OwGPFnn7kI10QuMSdNG93LhLDH5KpkbERwHGuKNYwSk7DyKboEdgtMe8gsqJq01EhVSfRcR8vfDDzKAzLL1LhQ»\",\n  \"dq\": \"«h7-biWOg4UgffOtPNfF9Lg2aFtJdBbhWcy8EHchzUbUZlOk6Ok0SNf_e8GmE1cb2652en8TBKY3rRVX4G7zE9Q»\",\n  \"qi\": \"«ujrKHYiV425Od0p6Rz-3UdAvugtI5aaJ6T0p5TgdiLnLVTRxiunSFaKprrqdkqbCtXmQoZ3wExQ1P_deeVl6kA»\",\n  \"kid\": \"k1\"\n}\n",
    "{\"d\": \"«tqPbE-0KWYp-S6VBegjG7rxmATH6j6tpfGVwU1CQof2hv7yW45FBGioG7MuiZ9_PkpvKPSnXdUN7glTMmQebMzET4PvHNJQXr5LIxEE_wRmk3pB0du6TsmOPjB2xG3paYwYXXgQp3_rsUrH8T4ONFj8k5ID268AaGaxZxjXimVk»\", \"dp\": \"«OwGPFnn7kI10QuMSdNG93LhLDH5KpkbERwHGuKNYwSk7DyKboEdgtMe8gsqJq01EhVSfRcR8vfDDzKAzLL1LhQ»\", \"dq\": \"«h7-biWOg4UgffOtPNfF9Lg2aFtJdBbhWcy8EHchzUbUZlOk6Ok0SNf_e8GmE1cb2652en8TBKY3rRVX4G7zE9Q»\", \"e\": \"AQAB\", \"kid\": \"k1\", \"kty\": \"RSA\", \"n\": \"v0kNrw3dp1EY1muf9GP5ThNi-V5HN11XzFEjMMgenJ_YlXcdWq36_5EemcMIAy8Ki2F_jUUQclVeLAvC9-mp4mbPvU3fbCE7FjsHhD_whJxa7-efdEA0lTNqHUSohgJhp31pys3XVV8ba6sBhczVggAmr4HO-9SMPAm1PbTQNds\", \"p\": \"«5cJuZRoli-byPXgDKXsTIENJIGcM1KhiKX5oCvuQjHL9vUDaGEpckhV3PUwShfvzkTo_lXceE6TTvqhfOqRNfQ»\", \"q\": \"«1SG9KEnBjEpV6o1Nlsm-LcTBxy_-xiA8UgSuZn8nfzYf7ZHGJse9ZBCpqaB7PiAK6GqHt7OQqj52bykWTCbQNw»\", \"qi\": \"«ujrKHYiV425Od0p6Rz-3UdAvugtI5aaJ6T0p5TgdiLnLVTRxiunSFaKprrqdkqbCtXmQoZ3wExQ1P_deeVl6kA»\"}",
    "{\"keys\": [{\"kty\": \"EC\", \"crv\": \"P-256\", \"x\": \"acGnNWxUVUOrps9Rp3HG4hMnl2DL1hsv3FIrahIvaZU\", \"y\": \"cBE0JllBfIO1oYxZAxALuWRqJ-8UcV5UHCfeDntpa58\", \"d\": \"«d3nuuh3KzuV-bg7H8lBUbIYS6BHEl-49cQRXXwE54WY»\"}, {\"kty\": \"oct\", \"k\": \"«GawgguFyGrWKav7AX4VKUg»\", \"alg\": \"A128KW\", \"kid\": \"sym\"}]}",
    "{\"body\": \"{\\\"kty\\\": \\\"EC\\\", \\\"crv\\\": \\\"P-256\\\", \\\"x\\\": \\\"acGnNWxUVUOrps9Rp3HG4hMnl2DL1hsv3FIrahIvaZU\\\", \\\"y\\\": \\\"cBE0JllBfIO1oYxZAxALuWRqJ-8UcV5UHCfeDntpa58\\\", \\\"d\\\": \\\"«d3nuuh3KzuV-bg7H8lBUbIYS6BHEl-49cQRXXwE54WY»\\\"}\"}",
    "JWT_SIGNING_KEY='{\"crv\":\"Ed25519\",\"d\":\"«nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A»\",\"kty\":\"OKP\",\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\"}'",
    "<?xml version=\"1.0\"?>\n<RSAKeyValue><Modulus>v0kNrw3dp1EY1muf9GP5ThNi+V5HN11XzFEjMMgenJ/YlXcdWq36/5EemcMIAy8Ki2F/jUUQclVeLAvC9+mp4mbPvU3fbCE7FjsHhD/whJxa7+efdEA0lTNqHUSohgJhp31pys3XVV8ba6sBhczVggAmr4HO+9SMPAm1PbTQNds=</Modulus><Exponent>AQAB</Exponent><P>«5cJuZRoli+byPXgDKXsTIENJIGcM1KhiKX5oCvuQjHL9vUDaGEpckhV3PUwShfvzkTo/lXceE6TTvqhfOqRNfQ==»</P><Q>«1SG9KEnBjEpV6o1Nlsm+LcTBxy/+xiA8UgSuZn8nfzYf7ZHGJse9ZBCpqaB7PiAK6GqHt7OQqj52bykWTCbQNw==»</Q><DP>«OwGPFnn7kI10QuMSdNG93LhLDH5KpkbERwHGuKNYwSk7DyKboEdgtMe8gsqJq01EhVSfRcR8vfDDzKAzLL1LhQ==»</DP><DQ>«h7+biWOg4UgffOtPNfF9Lg2aFtJdBbhWcy8EHchzUbUZlOk6Ok0SNf/e8GmE1cb2652en8TBKY3rRVX4G7zE9Q==»</DQ><InverseQ>«ujrKHYiV425Od0p6Rz+3UdAvugtI5aaJ6T0p5TgdiLnLVTRxiunSFaKprrqdkqbCtXmQoZ3wExQ1P/deeVl6kA==»</InverseQ><D>«tqPbE+0KWYp+S6VBegjG7rxmATH6j6tpfGVwU1CQof2hv7yW45FBGioG7MuiZ9/PkpvKPSnXdUN7glTMmQebMzET4PvHNJQXr5LIxEE/wRmk3pB0du6TsmOPjB2xG3paYwYXXgQp3/rsUrH8T4ONFj8k5ID268AaGaxZxjXimVk=»</D></RSAKeyValue>\n",
    "<RSAKeyValue>\n  <Modulus>v0kNrw3dp1EY1muf9GP5ThNi+V5HN11XzFEjMMgenJ/YlXcdWq36/5EemcMIAy8Ki2F/jUUQclVeLAvC9+mp4mbPvU3fbCE7FjsHhD/whJxa7+efdEA0lTNqHUSohgJhp31pys3XVV8ba6sBhczVggAmr4HO+9SMPAm1PbTQNds=</Modulus>\n  <Exponent>AQAB</Exponent>\n  <P>«5cJuZRoli+byPXgDKXsTIENJIGcM1KhiKX5oCvuQjHL9vUDaGEpckhV3PUwShfvzkTo/lXceE6TTvqhfOqRNfQ==»</P>\n  <Q>«1SG9KEnBjEpV6o1Nlsm+LcTBxy/+xiA8UgSuZn8nfzYf7ZHGJse9ZBCpqaB7PiAK6GqHt7OQqj52bykWTCbQNw==»</Q>\n  <DP>«OwGPFnn7kI10QuMSdNG93LhLDH5KpkbERwHGuKNYwSk7DyKboEdgtMe8gsqJq01EhVSfRcR8vfDDzKAzLL1LhQ==»</DP>\n  <DQ>«h7+biWOg4UgffOtPNfF9Lg2aFtJdBbhWcy8EHchzUbUZlOk6Ok0SNf/e8GmE1cb2652en8TBKY3rRVX4G7zE9Q==»</DQ>\n  <InverseQ>«ujrKHYiV425Od0p6Rz+3UdAvugtI5aaJ6T0p5TgdiLnLVTRxiunSFaKprrqdkqbCtXmQoZ3wExQ1P/deeVl6kA==»</InverseQ>\n  <D>«tqPbE+0KWYp+S6VBegjG7rxmATH6j6tpfGVwU1CQof2hv7yW45FBGioG7MuiZ9/PkpvKPSnXdUN7glTMmQebMzET4PvHNJQXr5LIxEE/wRmk3pB0du6TsmOPjB2xG3paYwYXXgQp3/rsUrH8T4ONFj8k5ID268AaGaxZxjXimVk=»</D>\n</RSAKeyValue>",
    "#\n# 2048 bit OpenVPN static key\n#\n«-----BEGIN OpenVPN Static key V1-----\n16ddd9b7d4d11bf482c43d9c2bf21a9b\nf2c4e60a88b2f993c61c9ea49af39da8\nb15b5ce8a768627f12f19601a03dc669\na9f835bc9da2a624561c8c1024ae74d1\n1d397535958006f4f62d20bce4e2ed14\n74cebc6b2284771cf992a381a3949a45\nd05477b22328ae3dc486c016cff1efc2\n2f0873a3d2bf943a8d97699d107331ee\ne2faa0a6b831e8a059bbec640abc796e\n7c365fa102f793e21376d3f0ace91cb8\na4fe08dfbe4e8b789b06cde7cd579186\n6add003dcda7d05107f610b02def71e8\n4d523e581500b14830f19515b6f423fe\n77598f2d937ca1762c6ba289b1079718\n6c49d651bd93ef8213bf826934c78b51\na8678ba85a7235c6c0201a3ee374283c\n-----END OpenVPN Static key V1-----»\n",
    "<tls-crypt-v2>\n«-----BEGIN OpenVPN tls-crypt-v2 client key-----\nPDAVBpzGDjIJCpRs0ZzgnV32PsS2IvFcAUZfhaWNMJr/WzlL0b8ZBNeTWigWRWGZ\nfk3kE+wQ1wvjBhPqHU76J8eBk3ooHiwJHsvs4Fh4eeUkS3omhTWwDQqaw6ssOPkd\n2evCcbvZdkFhwU3h25BrSBRMKzgv6T9nfHLw1G4tKuwgQkGUvJRUiEEMoW/yQd/c\nAJdMrbPC33OtOr+T+KACZfAbsvNsbClZf66UEvMDb+ER6h8Q\n-----END OpenVPN tls-crypt-v2 client key-----»\n</tls-crypt-v2>\n",
];

/// Public keys, certificates and look-alikes in the same encodings: stay.
const PUBLIC_KEYS: &[&str] = &[
    "$ openssl rsa -pubin -in key.pub -text -noout\nPublic-Key: (1024 bit)\nModulus:\n    00:cb:af:8b:99:52:a1:49:d4:46:6e:77:f9:77:9a:\n    ec:2b:8f:39:41:d8:dc:bc:a9:fc:a4:d4:85:0f:4c:\n    52:3f:f5:53:de:7f:c3:93:14:ed:85:f6:b7:4e:af:\n    11:91:1d:09:42:74:6b:84:33:6a:93:db:26:f4:1a:\n    26:91:de:c0:28:6f:a9:ee:48:ad:2f:88:07:7e:f2:\n    6b:b5:34:c4:30:54:06:a6:fe:7e:61:b4:0d:42:46:\n    04:97:ba:c7:b8:74:dd:a0:be:e8:59:7f:b1:56:94:\n    12:1a:e4:6b:df:f5:4e:00:b9:65:41:36:f0:69:c6:\n    92:31:58:73:7a:5b:62:a3:3d\nExponent: 65537 (0x10001)\n",
    "Certificate:\n    Data:\n        Version: 3 (0x2)\n        Serial Number:\n            0e:12:52:a5:ef:d6:e0:24:11:57:10:1e:21:0e:c1:c8:50:7b:7e:47\n        Signature Algorithm: sha256WithRSAEncryption\n        Issuer: CN = x\n        Validity\n            Not Before: Dec  5 21:03:41 2026 GMT\n            Not After : Dec  6 21:03:41 2026 GMT\n        Subject: CN = x\n        Subject Public Key Info:\n            Public Key Algorithm: rsaEncryption\n                Public-Key: (1024 bit)\n                Modulus:\n                    00:cb:af:8b:99:52:a1:49:d4:46:6e:77:f9:77:9a:\n                    ec:2b:8f:39:41:d8:dc:bc:a9:fc:a4:d4:85:0f:4c:\n                    52:3f:f5:53:de:7f:c3:93:14:ed:85:f6:b7:4e:af:\n                    11:91:1d:09:42:74:6b:84:33:6a:93:db:26:f4:1a:\n                    26:91:de:c0:28:6f:a9:ee:48:ad:2f:88:07:7e:f2:\n                    6b:b5:34:c4:30:54:06:a6:fe:7e:61:b4:0d:42:46:\n                    04:97:ba:c7:b8:74:dd:a0:be:e8:59:7f:b1:56:94:\n                    12:1a:e4:6b:df:f5:4e:00:b9:65:41:36:f0:69:c6:\n                    92:31:58:73:7a:5b:62:a3:3d\n                Exponent: 65537 (0x10001)\n        X509v3 extensions:\n            X509v3 Subject Key Identifier: \n                1E:1B:CC:AE:1A:F6:B0:81:9F:96:2A:B6:DA:DF:5E:F1:FB:AF:41:0B\n            X509v3 Authority Key Identifier: \n                1E:1B:CC:AE:1A:F6:B0:81:9F:96:2A:B6:DA:DF:5E:F1:FB:AF:41:0B\n            X509v3 Basic Constraints: critical\n                CA:TRUE\n    Signature Algorithm: sha256WithRSAEncryption\n    Signature Value:\n        8f:bf:d6:46:b3:3f:50:30:ec:6f:8b:7f:09:47:0d:1b:96:63:\n        5c:55:64:8e:97:19:c9:af:42:74:ea:0a:bd:19:b3:4c:53:e7:\n        e9:6a:d9:3d:9f:37:ed:32:f2:92:f1:a5:05:fa:c2:53:11:0f:\n        28:62:90:e9:71:80:6e:c0:22:61:ab:7e:4c:7d:18:9c:24:ab:\n        7c:1a:2b:d5:6e:7a:9b:f3:ad:31:a1:4f:3b:ca:8a:89:4c:24:\n        70:bd:d2:c3:41:d9:47:73:09:aa:0e:d8:1f:9f:84:ea:42:08:\n        a4:43:2a:11:8c:00:ba:5b:92:50:49:d5:f5:9a:ee:a6:14:d4:\n        75:1a\n",
    "{\"keys\": [{\"kty\": \"RSA\", \"use\": \"sig\", \"kid\": \"2024-05\", \"alg\": \"RS256\", \"n\": \"v0kNrw3dp1EY1muf9GP5ThNi-V5HN11XzFEjMMgenJ_YlXcdWq36_5EemcMIAy8Ki2F_jUUQclVeLAvC9-mp4mbPvU3fbCE7FjsHhD_whJxa7-efdEA0lTNqHUSohgJhp31pys3XVV8ba6sBhczVggAmr4HO-9SMPAm1PbTQNds\", \"e\": \"AQAB\"}]}",
    "{\"kty\": \"EC\", \"crv\": \"P-256\", \"x\": \"acGnNWxUVUOrps9Rp3HG4hMnl2DL1hsv3FIrahIvaZU\", \"y\": \"cBE0JllBfIO1oYxZAxALuWRqJ-8UcV5UHCfeDntpa58\"}",
    "{\"d\": \"2024-05-01T10:00:00Z\", \"p\": \"d3nuuh3KzuV-bg7H8lBUbIYS6BHEl-49cQRXXwE54WY\", \"q\": \"search terms\"}",
    "<RSAKeyValue><Modulus>v0kNrw3dp1EY1muf9GP5ThNi+V5HN11XzFEjMMgenJ/YlXcdWq36/5EemcMIAy8Ki2F/jUUQclVeLAvC9+mp4mbPvU3fbCE7FjsHhD/whJxa7+efdEA0lTNqHUSohgJhp31pys3XVV8ba6sBhczVggAmr4HO+9SMPAm1PbTQNds=</Modulus><Exponent>AQAB</Exponent></RSAKeyValue>",
    "<html><body><p>The P and the Q</p><d>note</d></body></html>",
    "client\ndev tun\nremote vpn.example.com 1194\ntls-auth ta.key 1\nkey-direction 1\n",
    "The -----BEGIN OpenVPN Static key V1----- header starts the file; the key follows it.",
];

/// Random values in a credential's position, whatever it is called: weak
/// names in config sections, vendor headers, env names with a credential
/// word among their parts, prompts, numbered keys, session cookies,
/// bootstrap tokens.
const POSITIONS: &[&str] = &[
    "$ cat ~/.config/tool/credentials\n[default]\nkey = «Rk3vQ9mZx2LpT7wNc4Hy8Bd1»\nid = 8f3kQ2mXv9\nregion = eu-west-1\n",
    "[profile prod]\nregion = eu-west-1\ncredential = «q8XnZ2LvR5tKw3PmB7yHc1Fd»\n",
    "settings:\n  key: «Zx3q9L2mV8rT4wK7pN1cB6hY5dF0gJ3s»\n  name: demo\n",
    "> POST /1/batch HTTP/2\n> x-honeycomb-team: «hcaik_01hq2w3e4r5t6y7u8i9o0pasdfghjklzxcvbnm»\n> X-Honeycomb-Dataset: prod-events\n",
    "curl -H \"X-Honeycomb-Team:«Xk7pQ2vN9mL4wR8tY3cB6hJ1dF5g»\" -H 'X-JFrog-Art-Api: «AKCp8Xk7pQ2vN9mL4wR8tY3cB6hJ1dF5gXk7pQ2vN9m»' https://api.example.com",
    "headers = {\"x-api-token\": \"«Xk7pQ2vN9mL4wR8tY3cB6hJ1dF5g»\", \"X-Honeycomb-Team\": \"«Rk3vQ9mZx2LpT7wNc4Hy8Bd1»\"}",
    "export OP_SESSION_my=«Zx3q9L2mV8rT4wK7pN1cB6hY5dF0gJ3sA8eU2iO»\nOP_SESSION_acme_corp=\"«Xk7pQ2vN9mL4wR8tY3cB6hJ1dF5gS0aE2zU8iO4lK7w»\"\n",
    "VAULT_SECRET_ID=«0ee2c1ae-5c5b-3c8e-0d0c-7b1c38e3b0b4»\nVAULT_ROLE_ID=84896a0c-1347-aa90-a4f6-aca8b7558780\n",
    "Enter new value for DB_PASSWORD:\nNew value: «Kq2vL9pX4wZ7nR»\nSecret value: «Xk7pQ2vN9mL4wR8t»\n",
    "$ vault operator init\nUnseal Key 1: «4jYbl2CBIv6SpkKj6Hos9iD32k5RfGkLzlosrrq/JgOm»\nUnseal Key 2: «B05G1DRtfYckFV5BbdBvXq0wkK5HFqB9g2jcDmNfTQiS»\nRecovery Key 3: «7t8DNjZvqPsEk0yFxAGR2oWq1mXzL9aVbB3cN5dH6eJ»\n\nInitial Root Token: «hvs.6j4cuewowBGit65rheNoceI7»\n",
    "Key                   Value\n---                   -----\nsecret_id             «0ee2c1ae-5c5b-3c8e-0d0c-7b1c38e3b0b4»\nsecret_id_accessor    84896a0c-1347-aa90-a4f6-aca8b7558780\nsecret_id_ttl         0s\n",
    "{\"request_id\": \"5bb31901-b919-4c97-b038-2678000cdc2b\", \"data\": {\"secret_id\": \"«0ee2c1ae-5c5b-3c8e-0d0c-7b1c38e3b0b4»\", \"secret_id_accessor\": \"84896a0c-1347-aa90-a4f6-aca8b7558780\"}}",
    "< HTTP/1.1 200 OK\n< Set-Cookie: session=«eyJfcGVybWFuZW50Ijp0cnVlfQ.Zk9xQw.Rk3vQ9mZx2LpT7wNc4Hy8Bd1XqZz91»; HttpOnly; Path=/\n< Set-Cookie: JSESSIONID=«8F3A1B2C4D5E6F708192A3B4C5D6E7F8»; Path=/; Secure\n",
    "Cookie: theme=dark; sessionid=«q8xnz2lvr5tkw3pmb7yhc1fd»; lang=en; _gh_sess=«Zk9xQwRk3vQ9mZx2LpT7wNc4Hy8Bd1%3D%3D»\n",
    "Set-Cookie: connect.sid=«s%3AQ8XnZ2LvR5tKw3PmB7yHc1Fd.abcDEF123xyz»; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT\n",
    "$ kubeadm token create\n«9a08jv.c0izixklcxtmnze7»\n$ kubeadm join 192.168.1.5:6443 --token «k3x9qz.7fpl2mvt8w4ncr1b» \\\n    --discovery-token-ca-cert-hash sha256:aa7c1f3f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5\n",
    "TOKEN                     TTL         EXPIRES                USAGES                   DESCRIPTION\n«9a08jv.c0izixklcxtmnze7»   23h         2024-05-02T10:00:00Z   authentication,signing   <none>\n",
];

/// Values in those positions that hold no credential: stay.
const NOT_POSITIONS: &[&str] = &[
    "{\"key\": \"UZ4sEb7QmdPF4dzxyffgz6P3mrjqGIDD\", \"value\": 3}",
    "[default]\nkey = name_of_the_profile\nid = 8f3kQ2mXv9\n",
    "const KEY: &str = \"Rk3vQ9mZx2LpT7wNc4Hy8Bd1\";\nlet key = cache.key(&entry);\n",
    "< x-amz-id-2: Xk7pQ2vN9mL4wR8tY3cB6hJ1dF5gXk7pQ2vN9mL4wR8tY3cB6hJ1dF5g=\n< X-Amz-Cf-Id: Xk7pQ2vN9mL4wR8tY3cB6hJ1dF5gXk7pQ2vN9mL4wR8tY3cB6hJ1dF5g==\n< X-Request-Id: 7f3aXk7pQ2vN9mL4wR8tY3cB6h\n",
    "< X-Hub-Signature-256: sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17\n< X-Amzn-Trace-Id: Root=1-65f0a1b2-Xk7pQ2vN9mL4wR8tY3cB6hJ1\n",
    "X-Honeycomb-Dataset: prod-events\nX-Frame-Options: DENY\n",
    "API_KEY_ID=Xk7pQ2vN9mL4wR8tY3cB6hJ1\nSECRET_NAME=prod-db-credentials\nSESSION_TIMEOUT=3600\nTOKEN_URL=https://auth.example.com/oauth/token\n",
    "New value: 42\nnew value: hello\nThe value: Kq2vL9pX4wZ7nR\n",
    "Key 1: my-first-key\n",
    "{\"SecretId\": \"prod/db-password\", \"VersionId\": \"EXAMPLE1-90ab-cdef-fedc-ba987EXAMPLE\"}",
    "$ aws secretsmanager get-secret-value --secret-id prod/db-password\n",
    "Cookie: theme=dark; lang=en-US; _ga=GA1.2.1234567890.1700000000\nSet-Cookie: consent=yes; Path=/; Max-Age=31536000\n",
    "{\"id\":\"5bb31901-b919-4c97-b038-2678000cdc2b\",\"session_id\":\"8c7973d7-7866-4bb9-b57a-873adf47f0ba\"}",
    "bootstrapTokens:\n- token: abcdef.0123456789abcdef\nfiles: config.0123456789abcdef report.finalversion2024\n",
    "--discovery-token-ca-cert-hash sha256:aa7c1f3f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5\n",
];

/// Key blocks whose every line carries a tool's decoration: a CI log's
/// timestamp, a log's source, `cat -A`'s `$`, line numbers, quote and diff
/// marks, a table's borders. Read through them: the block is masked from its
/// first marker to its last, decorations between its lines included.
const DECORATED: &[&str] = &[
    // A CI log: a timestamp before each line (GitHub Actions' own, colours too).
    concat!(
        "2024-05-01T10:00:00.1034567Z ##[group]Run cat deploy_key\n",
        "2024-05-01T10:00:00.1034567Z \x1b[36;1mcat deploy_key\x1b[0m\n",
        "2024-05-01T10:00:00.1044567Z ##[endgroup]\n",
        "2024-05-01T10:00:00.1237900Z «-----BEGIN RSA PRIVATE KEY-----\n",
        "2024-05-01T10:00:01.1239011Z PtaAjSk+0v471Y1B7d5ljPd2u7KMhqFXlqlcY/9HZ7L7AdodB4lCCHqt0PEtWJ1M\n",
        "2024-05-01T10:00:01.1240122Z XnLJy+3bw6Yxw8IHcPTWK3gD6A/8G9LJ07zRypcbLIz88nbuBK5v7mrpM/r1Xhx8\n",
        "2024-05-01T10:00:01.1241233Z 5/iMxy2WW/1zfh6Ew3CmAvtv1IrJCv957oOk2YoZhs/QTuyI1HXWrwdTa4cW4ZXc\n",
        "2024-05-01T10:00:01.1242344Z lGiP5dtHOee6eJZ7Ns/6ig1Sd06Jqphx+zONWuK2S0B7xyWMo+Js4sgtHEx24PW8\n",
        "2024-05-01T10:00:02.1243455Z AqupKK1ruROOgYDA9fJIlLSXq3C6cnphBKPGsEcjyK/8+cZmZ+fbo2JRUWaS/Kf5\n",
        "2024-05-01T10:00:02.1244566Z r1SNdWiCvpdTepsfAfAhZN7yN85pQg1kw49U0gyHRgjuUsHtAEr0cxKZe7qI4ciN\n",
        "2024-05-01T10:00:02.1245677Z -----END RSA PRIVATE KEY-----»\n",
        "2024-05-01T10:00:03.9034567Z Post job cleanup.\n",
    ),
    // `kubectl logs --timestamps`.
    concat!(
        "2024-05-01T10:00:01.100000000Z «-----BEGIN PRIVATE KEY-----\n",
        "2024-05-01T10:00:01.100000037Z PtaAjSk+0v471Y1B7d5ljPd2u7KMhqFXlqlcY/9HZ7L7AdodB4lCCHqt0PEtWJ1M\n",
        "2024-05-01T10:00:01.100000074Z XnLJy+3bw6Yxw8IHcPTWK3gD6A/8G9LJ07zRypcbLIz88nbuBK5v7mrpM/r1Xhx8\n",
        "2024-05-01T10:00:01.100000111Z 5/iMxy2WW/1zfh6Ew3CmAvtv1IrJCv957oOk2YoZhs/QTuyI1HXWrwdTa4cW4ZXc\n",
        "2024-05-01T10:00:01.100000148Z lGiP5dtHOee6eJZ7Ns/6ig1Sd06Jqphx+zONWuK2S0B7xyWMo+Js4sgtHEx24PW8\n",
        "2024-05-01T10:00:01.100000185Z -----END PRIVATE KEY-----»\n",
    ),
    // A build tool's `[hh:mm:ss]`.
    concat!(
        "[10:00:01] Using key:\n",
        "[10:00:01] «-----BEGIN EC PRIVATE KEY-----\n",
        "[10:00:02] JFnT6EYUvHztgJfWAD2qxW8vus3I5hvhkfCkue0CnYedusTUKP3cxZR6oiIn0oWJ\n",
        "[10:00:03] aGo0ffAN2HV1ZxON+wseS4ETkDHaJacQmtiDM/rC0XBbOcvO8tZ8OxWrEXv3izUr\n",
        "[10:00:04] zWIxjDkcKeXQjxfZeLvPeIYEAjAEVNTuTA==\n",
        "[10:00:05] -----END EC PRIVATE KEY-----»\n",
        "[10:00:09] Done in 1.2s\n",
    ),
    // `docker compose logs`: the service's name.
    concat!(
        "web-1  | «-----BEGIN OPENSSH PRIVATE KEY-----\n",
        "web-1  | b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n",
        "web-1  | TBUpht3Iuk0YIgIvD3m6x1MVGMLbrsyOvWJJCKKB02lTrZYPcSoLBE18Uw+1iApvo1TjMK\n",
        "web-1  | PrUnvBGveT7cNqfAvkStYNrjMGdGajgvErLX97q87AFsKiv25MzpzjgOTC+R8GLWa3Trlz\n",
        "web-1  | OlTETsalpZN2pQ4POhnD+O5sKtgJ0Fnw8Lw3Ku+xyE3XWv3Prf8yNm4XZaCq\n",
        "web-1  | -----END OPENSSH PRIVATE KEY-----»\n",
        "web-1  | Listening on :8080\n",
    ),
    // `cat -A`: `$` at each line's end.
    concat!(
        "$ cat -A ~/.ssh/id_ed25519\n",
        "«-----BEGIN OPENSSH PRIVATE KEY-----$\n",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW$\n",
        "TBUpht3Iuk0YIgIvD3m6x1MVGMLbrsyOvWJJCKKB02lTrZYPcSoLBE18Uw+1iApvo1TjMK$\n",
        "PrUnvBGveT7cNqfAvkStYNrjMGdGajgvErLX97q87AFsKiv25MzpzjgOTC+R8GLWa3Trlz$\n",
        "OlTETsalpZN2pQ4POhnD+O5sKtgJ0Fnw8Lw3Ku+xyE3XWv3Prf8yNm4XZaCq$\n",
        "-----END OPENSSH PRIVATE KEY-----»$\n",
    ),
    // `cat -A` of a file with CRLF line ends.
    concat!(
        "$ cat -A key.pem\n",
        "«-----BEGIN EC PRIVATE KEY-----^M$\n",
        "JFnT6EYUvHztgJfWAD2qxW8vus3I5hvhkfCkue0CnYedusTUKP3cxZR6oiIn0oWJ^M$\n",
        "aGo0ffAN2HV1ZxON+wseS4ETkDHaJacQmtiDM/rC0XBbOcvO8tZ8OxWrEXv3izUr^M$\n",
        "zWIxjDkcKeXQjxfZeLvPeIYEAjAEVNTuTA==^M$\n",
        "-----END EC PRIVATE KEY-----»^M$\n",
    ),
    // `cat -n`: line numbers aligned right, a tab.
    concat!(
        "$ cat -n deploy/key.pem\n",
        "     1\t# deploy key, rotated 2024-05\n",
        "     2\t\n",
        "     3\t«-----BEGIN RSA PRIVATE KEY-----\n",
        "     4\tPtaAjSk+0v471Y1B7d5ljPd2u7KMhqFXlqlcY/9HZ7L7AdodB4lCCHqt0PEtWJ1M\n",
        "     5\tXnLJy+3bw6Yxw8IHcPTWK3gD6A/8G9LJ07zRypcbLIz88nbuBK5v7mrpM/r1Xhx8\n",
        "     6\t5/iMxy2WW/1zfh6Ew3CmAvtv1IrJCv957oOk2YoZhs/QTuyI1HXWrwdTa4cW4ZXc\n",
        "     7\tlGiP5dtHOee6eJZ7Ns/6ig1Sd06Jqphx+zONWuK2S0B7xyWMo+Js4sgtHEx24PW8\n",
        "     8\tAqupKK1ruROOgYDA9fJIlLSXq3C6cnphBKPGsEcjyK/8+cZmZ+fbo2JRUWaS/Kf5\n",
        "     9\tr1SNdWiCvpdTepsfAfAhZN7yN85pQg1kw49U0gyHRgjuUsHtAEr0cxKZe7qI4ciN\n",
        "    10\t-----END RSA PRIVATE KEY-----»\n",
    ),
    // `bat`'s gutter.
    concat!(
        "───────┬────────────────────────────────────────────────────────────────────\n",
        "       │ File: tls.key\n",
        "───────┼────────────────────────────────────────────────────────────────────\n",
        "   1   │ «-----BEGIN PRIVATE KEY-----\n",
        "   2   │ PtaAjSk+0v471Y1B7d5ljPd2u7KMhqFXlqlcY/9HZ7L7AdodB4lCCHqt0PEtWJ1M\n",
        "   3   │ XnLJy+3bw6Yxw8IHcPTWK3gD6A/8G9LJ07zRypcbLIz88nbuBK5v7mrpM/r1Xhx8\n",
        "   4   │ 5/iMxy2WW/1zfh6Ew3CmAvtv1IrJCv957oOk2YoZhs/QTuyI1HXWrwdTa4cW4ZXc\n",
        "   5   │ -----END PRIVATE KEY-----»\n",
        "───────┴────────────────────────────────────────────────────────────────────\n",
    ),
    // A linter's excerpt: `  12 | `.
    concat!(
        "error: key committed to the repository\n",
        " --> config/dev.pem:1:1\n",
        "  |\n",
        "  8 | «-----BEGIN EC PRIVATE KEY-----\n",
        "  9 | JFnT6EYUvHztgJfWAD2qxW8vus3I5hvhkfCkue0CnYedusTUKP3cxZR6oiIn0oWJ\n",
        " 10 | aGo0ffAN2HV1ZxON+wseS4ETkDHaJacQmtiDM/rC0XBbOcvO8tZ8OxWrEXv3izUr\n",
        " 11 | zWIxjDkcKeXQjxfZeLvPeIYEAjAEVNTuTA==\n",
        " 12 | -----END EC PRIVATE KEY-----»\n",
    ),
    // A quoted mail: `> `.
    concat!(
        "On Mon, May 1, 2024 at 10:00 AM Ops wrote:\n",
        "> «-----BEGIN EC PRIVATE KEY-----\n",
        "> JFnT6EYUvHztgJfWAD2qxW8vus3I5hvhkfCkue0CnYedusTUKP3cxZR6oiIn0oWJ\n",
        "> aGo0ffAN2HV1ZxON+wseS4ETkDHaJacQmtiDM/rC0XBbOcvO8tZ8OxWrEXv3izUr\n",
        "> zWIxjDkcKeXQjxfZeLvPeIYEAjAEVNTuTA==\n",
        "> -----END EC PRIVATE KEY-----»\n",
        "\n",
        "Thanks!\n",
    ),
    // A diff deleting a key: `-` glued to each line.
    concat!(
        "diff --git a/key.pem b/key.pem\n",
        "deleted file mode 100644\n",
        "--- a/key.pem\n",
        "+++ /dev/null\n",
        "@@ -1,5 +0,0 @@\n",
        "-«-----BEGIN RSA PRIVATE KEY-----\n",
        "-PtaAjSk+0v471Y1B7d5ljPd2u7KMhqFXlqlcY/9HZ7L7AdodB4lCCHqt0PEtWJ1M\n",
        "-XnLJy+3bw6Yxw8IHcPTWK3gD6A/8G9LJ07zRypcbLIz88nbuBK5v7mrpM/r1Xhx8\n",
        "-5/iMxy2WW/1zfh6Ew3CmAvtv1IrJCv957oOk2YoZhs/QTuyI1HXWrwdTa4cW4ZXc\n",
        "------END RSA PRIVATE KEY-----»\n",
    ),
    // A one-column box.
    concat!(
        "┌──────────────────────────────────────────────────────────────────┐\n",
        "│ VALUE                                                            │\n",
        "├──────────────────────────────────────────────────────────────────┤\n",
        "│ «-----BEGIN PRIVATE KEY-----                                      │\n",
        "│ PtaAjSk+0v471Y1B7d5ljPd2u7KMhqFXlqlcY/9HZ7L7AdodB4lCCHqt0PEtWJ1M │\n",
        "│ XnLJy+3bw6Yxw8IHcPTWK3gD6A/8G9LJ07zRypcbLIz88nbuBK5v7mrpM/r1Xhx8 │\n",
        "│ 5/iMxy2WW/1zfh6Ew3CmAvtv1IrJCv957oOk2YoZhs/QTuyI1HXWrwdTa4cW4ZXc │\n",
        "│ -----END PRIVATE KEY-----»                                        │\n",
        "└──────────────────────────────────────────────────────────────────┘\n",
    ),
    // `doppler secrets`: a multi-line value in a table's cell.
    concat!(
        "┌────────────┬──────────────────────────────────────────────────────────────────┐\n",
        "│ NAME       │ VALUE                                                            │\n",
        "├────────────┼──────────────────────────────────────────────────────────────────┤\n",
        "│ DB_HOST    │ db.internal                                                      │\n",
        "├────────────┼──────────────────────────────────────────────────────────────────┤\n",
        "│ TLS_KEY    │ «-----BEGIN PRIVATE KEY-----                                      │\n",
        "│            │ PtaAjSk+0v471Y1B7d5ljPd2u7KMhqFXlqlcY/9HZ7L7AdodB4lCCHqt0PEtWJ1M │\n",
        "│            │ XnLJy+3bw6Yxw8IHcPTWK3gD6A/8G9LJ07zRypcbLIz88nbuBK5v7mrpM/r1Xhx8 │\n",
        "│            │ 5/iMxy2WW/1zfh6Ew3CmAvtv1IrJCv957oOk2YoZhs/QTuyI1HXWrwdTa4cW4ZXc │\n",
        "│            │ -----END PRIVATE KEY-----»                                        │\n",
        "└────────────┴──────────────────────────────────────────────────────────────────┘\n",
    ),
    // `openssl ec -text` in a CI log: `priv` masked, `pub` stays.
    concat!(
        "2024-05-01T10:00:00.1000000Z $ openssl ec -in key.pem -text -noout\n",
        "2024-05-01T10:00:00.1000000Z read EC key\n",
        "2024-05-01T10:00:00.1000000Z Private-Key: (256 bit)\n",
        "2024-05-01T10:00:00.1000000Z priv:\n",
        "2024-05-01T10:00:00.1000000Z     «c7:5a:a0:bb:4f:07:48:38:0d:38:44:2b:53:bf:1a:\n",
        "2024-05-01T10:00:00.1000000Z     e0:88:18:9e:7a:49:02:76:3f:9b:25:fa:b1:19:d6:\n",
        "2024-05-01T10:00:00.1000000Z     3f:d7»\n",
        "2024-05-01T10:00:00.1000000Z pub:\n",
        "2024-05-01T10:00:00.1000000Z     04:d7:46:6a:68:db:3b:b6:a9:53:3a:01:c4:b6:78:\n",
        "2024-05-01T10:00:00.1000000Z     ff:8c:d7:df:0a:ec:0c:44:40:b9:a0:45:4c:02:8d:\n",
        "2024-05-01T10:00:00.1000000Z     d9:e3:30:49:48:40:b7:e8:d9:40:63:d5:b7:a7:65:\n",
        "2024-05-01T10:00:00.1000000Z     a7:04:55:8d:79:2c:d3:35:97:68:22:a4:5f:38:bf:\n",
        "2024-05-01T10:00:00.1000000Z     38:1e:92:fb:46:da\n",
        "2024-05-01T10:00:00.1000000Z ASN1 OID: prime256v1\n",
        "2024-05-01T10:00:00.1000000Z NIST CURVE: P-256\n",
    ),
    // The same through `cat -A`.
    concat!(
        "$ openssl ec -in key.pem -text -noout | cat -A\n",
        "read EC key$\n",
        "Private-Key: (256 bit)$\n",
        "priv:$\n",
        "    «c7:5a:a0:bb:4f:07:48:38:0d:38:44:2b:53:bf:1a:$\n",
        "    e0:88:18:9e:7a:49:02:76:3f:9b:25:fa:b1:19:d6:$\n",
        "    3f:d7»$\n",
        "pub:$\n",
        "    04:d7:46:6a:68:db:3b:b6:a9:53:3a:01:c4:b6:78:$\n",
        "    ff:8c:d7:df:0a:ec:0c:44:40:b9:a0:45:4c:02:8d:$\n",
        "    d9:e3:30:49:48:40:b7:e8:d9:40:63:d5:b7:a7:65:$\n",
        "    a7:04:55:8d:79:2c:d3:35:97:68:22:a4:5f:38:bf:$\n",
        "    38:1e:92:fb:46:da$\n",
        "ASN1 OID: prime256v1$\n",
        "NIST CURVE: P-256$\n",
    ),
    // `openssl rsa -text` quoted: each private number masked.
    concat!(
        "Here is what the script printed:\n",
        "> modulus:\n",
        ">     00:dd:20:8f:ef:7b:13:3b:07:1e:9b:69:35:0b:09:\n",
        ">     c8:a4:a1:ce:83:c3:da:ef:c3:b9:5f:25:2a:2f:cb:\n",
        "> publicExponent: 65537 (0x10001)\n",
        "> privateExponent:\n",
        ">     «00:c5:a7:59:81:22:6d:ea:11:4f:16:73:4f:ea:71:\n",
        ">     f0:5a:d8:17:14:48:78:e6:5f:f8:ce:47:16:12:6b:\n",
        ">     1d:19:50:5b:a2:f8:73:7a:29:74:9f:36:9b:45:a1»\n",
        "> prime1:\n",
        ">     «00:f8:62:0f:e0:c4:67:9f:7a:dc:99:67:83:3b:8e:\n",
        ">     2d:6c:da:8a:a3:a9:72:22:ee:45:7b:99:1e:d4:36:\n",
        ">     63:78:b5:5f:93»\n",
        "\n",
        "Is that the right key?\n",
    ),
    // A config's credential after a line number, a log's timestamp, a quote mark.
    concat!(
        "  3 | key: «Zx3q9L2mV8rT4wK7pN1cB6hY5dF0gJ3s»\n",
        "2024-05-01T10:00:00.1000000Z settings:\n",
        "2024-05-01T10:00:00.1000000Z   key: «Zx3q9L2mV8rT4wK7pN1cB6hY5dF0gJ3s»\n",
        "> OP_SESSION_my=«Zx3q9L2mV8rT4wK7pN1cB6hY5dF0gJ3sA8eU2iO»\n",
        "[12:00:01] credential: «q8XnZ2LvR5tKw3PmB7yHc1Fd»\n",
    ),
];

/// Decorated lines with no private key in them: stay.
const DECORATED_NOT: &[&str] = &[
    // A certificate and a public key, decorated: public.
    concat!(
        "2024-05-01T10:00:00.1000000Z -----BEGIN CERTIFICATE-----\n",
        "2024-05-01T10:00:00.1000000Z MIIBszCCAVmgAwIBAgIUdM9Jx4eWJm7pOgEzTq0D0zj8GfQwCgYIKoZIzj0EAwIw\n",
        "2024-05-01T10:00:00.1000000Z LzELMAkGA1UEBhMCVVMxIDAeBgNVBAMMF2V4YW1wbGUuaW50ZXJuYWwgdGVzdCBD\n",
        "2024-05-01T10:00:00.1000000Z QTAeFw0yNDA1MDExMDAwMDBaFw0yNTA1MDExMDAwMDBaMC8xCzAJBgNVBAYTAlVT\n",
        "2024-05-01T10:00:00.1000000Z -----END CERTIFICATE-----\n",
        "> -----BEGIN PUBLIC KEY-----\n",
        "> MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE2N4JHXw7nK3Vb4jW6dxQ9mL1pT0R\n",
        "> e8vB5sYc3uZ7aQ1fK2gH4iJ6kL8mN0oP9qR3sT5uV7wX9yZ1aB3cD5eF7gH9iJ==\n",
        "> -----END PUBLIC KEY-----\n",
    ),
    // Markers with no key between them, decorated.
    concat!(
        "     1\t-----BEGIN RSA PRIVATE KEY-----\n",
        "     2\t...\n",
        "     3\t-----END RSA PRIVATE KEY-----\n",
        "> -----BEGIN OPENSSH PRIVATE KEY-----\n",
        "> (the key is in 1Password, not here)\n",
        "> -----END OPENSSH PRIVATE KEY-----\n",
    ),
    // A marker in a log's prose.
    concat!(
        "2024-05-01T10:00:00.1000000Z Error: expected \"-----BEGIN RSA PRIVATE KEY-----\" at the start of key.pem\n",
        "2024-05-01T10:00:00.1000000Z ##[error]Process completed with exit code 1.\n",
    ),
    // Decorated lines that hold no key.
    concat!(
        "name: demo$\n",
        "port: 8080$\n",
        "host: db.internal$\n",
        "  3 | priv: false\n",
        "  4 | pub: true\n",
        "  12 | let key = cache.key(&entry);\n",
        "  13 |     password_field: String,\n",
        "2024-05-01T10:00:00.1000000Z cache key = node-cache-Linux-x64-npm-8f3k2m\n",
        "2024-05-01T10:00:00.1000000Z ##[debug]Evaluating: secrets.DEPLOY_KEY\n",
        "[10:00:01] Compiled 12 files in 1.2s\n",
    ),
    // A table with no secret in it.
    concat!(
        "┌────────────┬──────────────────┐\n",
        "│ NAME       │ VALUE            │\n",
        "├────────────┼──────────────────┤\n",
        "│ DB_HOST    │ db.internal      │\n",
        "│ LOG_LEVEL  │ debug            │\n",
        "└────────────┴──────────────────┘\n",
    ),
    // A public key's dump, decorated.
    concat!(
        "2024-05-01T10:00:00.1000000Z read EC key\n",
        "2024-05-01T10:00:00.1000000Z Public-Key: (256 bit)\n",
        "2024-05-01T10:00:00.1000000Z pub:\n",
        "2024-05-01T10:00:00.1000000Z     04:d7:46:6a:68:db:3b:b6:a9:53:3a:01:c4:b6:78:\n",
        "2024-05-01T10:00:00.1000000Z     ff:8c:d7:df:0a:ec:0c:44:40:b9:a0:45:4c:02:8d:\n",
        "2024-05-01T10:00:00.1000000Z     d9:e3:30:49:48:40:b7:e8:d9:40:63:d5:b7:a7:65:\n",
        "2024-05-01T10:00:00.1000000Z     a7:04:55:8d:79:2c:d3:35:97:68:22:a4:5f:38:bf:\n",
        "2024-05-01T10:00:00.1000000Z     38:1e:92:fb:46:da\n",
        "2024-05-01T10:00:00.1000000Z ASN1 OID: prime256v1\n",
    ),
];

#[test]
fn references_names_public_values_and_documented_examples_stay() {
    check(LEFT_ALONE);
}

#[test]
fn secrets_beside_what_stays_are_still_masked() {
    check(STILL_MASKED);
}

#[test]
fn private_keys_in_other_encodings_are_masked_and_public_parts_stay() {
    check(PRIVATE_KEYS);
}

#[test]
fn public_keys_in_those_encodings_stay() {
    check(PUBLIC_KEYS);
}

#[test]
fn random_values_in_credential_positions_are_masked() {
    check(POSITIONS);
}

#[test]
fn values_in_those_positions_that_hold_none_stay() {
    check(NOT_POSITIONS);
}

#[test]
fn key_blocks_on_decorated_lines_are_masked_whole() {
    check(DECORATED);
}

#[test]
fn decorated_lines_without_a_key_stay() {
    check(DECORATED_NOT);
}

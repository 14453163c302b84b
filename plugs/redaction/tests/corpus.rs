//! The detection corpus. Every secret must come out masked wherever it turns
//! up, every near-miss must come out as it went in, and every text must come
//! out the same when it is streamed in pieces.
//!
//! The values are random, shaped like the real formats: none is a live
//! credential.

use blaise_plug::{EntryKind, TranscriptEntry};
use redaction::detect::Redactor;
use redaction::stream::Streams;

/// Secrets that say what they are by their shape, with the kind they are
/// masked as.
const TOKENS: &[(&str, &[&str])] = &[
    (
        "aws-access-key",
        &[
            "AKIAIDVWTFKTANGPVYQE",
            "ASIABEMZUMLENMWFQTRI",
            "AKIAER4UISCXD5M2LJG2",
            "AROAOEAEZ6JQN5VMESML",
        ],
    ),
    (
        "github-token",
        &[
            "ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ",
            "gho_tRBZRAJyu5BKaCKvsYFJGufE0w6HjwXmDMwm",
            "ghu_ctuUHtirNLU09X0fmnR7n5FdmueGDmblocOK",
            "ghs_Fm7BEKAT3TqFZA7oIzMc0pYJzvItJ17FO6bB",
            "ghr_lKu8y0Xx7gslTkmH3cmPtbx0Bhc2FyLPvMGv",
            "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",
        ],
    ),
    (
        "gitlab-token",
        &[
            "glpat-dnfECc2xbNDaWdoqNdTO",
            "gldt-niqNcM_8ZvU4mOjGiDWf",
            "glrt-OXL6oDQRPR39TP2Fcit5",
            "glptt-78151b0d833609480c6f3de6cf8d08af921ebae7",
            "GR1348941KDQBgjrdBG1ywc7zGVmb",
            "glcbt-ELfGmFFHFM1JkVzGAVb9",
        ],
    ),
    (
        "slack-token",
        &[
            "xoxb-543034082470-1434766027622-9KOVkyqwGUWJRNsOIQsWCa0l",
            "xoxp-557265463256-608996826460-0228334181517-847dbfbf0a22b3930edb25f927f7c70f",
            "xoxa-2-320418040615-jlxzwhJAReMvB83mBRK5PcXx",
            "xoxr-741273774510-Yq8YYUt3pnMWdKNHpZhfuNIqwpJ7Dt",
            "xapp-1-AJ6AXPJ1DE6-0150631170012-6231bf8da596117f292521cac6c9930279e94bf2686cfdd971c684583c41b6be",
            "xoxe.xoxp-1-kx99CBZ5EtMlc5jb3W9qa0aiPOZeSdXn2P4IccASs0lUVokmyiyFUgMQLfzT3zkR22ILQDvZYlQ4nYP7h8Xape2j5pl4Elo7LRtW",
        ],
    ),
    (
        "stripe-key",
        &[
            "sk_live_4S03h4hbZtO11LFj8hNhBMjF",
            "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",
            "rk_live_u318kVo7ijfRx1kfIO827E6Q",
            "sk_test_aqphacj8SlQ3RpDclRF8thET",
            "pk_live_BmdvaognuzhKv5ONIghEXY5z",
            "whsec_JldyWoW6U9Ar9VHkRelm3ptr1nrb89ti",
        ],
    ),
    (
        "openai-key",
        &[
            "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",
            "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",
            "sk-svcacct-I5KGClDnae2sKi53-vo4wq_rWkNN9fVsBkTxqwWhATUvusGRPuvKKmsHcih3",
            "sk-admin-31NIjRUFlFycLB4KzlA5baSk30loWfCodQVPsWeuqKngiqDU8CP70z0oFaIK",
        ],
    ),
    (
        "anthropic-key",
        &[
            "sk-ant-api03-xIOF8W2whyeTYLsEwnq_1hBjlp0q98H86nzXLM9zeeCUYLqiRsK0zjGEYAe7pKvvvx-TI8q3-tctJp3cz1LZ89Hbpvme8AA",
            "sk-ant-admin01-hkw7eVjWkD1rcJ_WDoVX3G4JyTioqg5L09MchtXZlv3mVn7UGpp2W4_iDnl9ihxQT5oAfRO_zN6oQj3OC2Sj25Bgm-KZQAA",
            "sk-ant-oat01-vhFnKiTNyrkUnihwt9BdadVGDuLNJfv_ULjRjfWcHfpYmFuIVfjfz9pNQFVddpURWdYR-sO6MrXzOeJG",
        ],
    ),
    (
        "google-api-key",
        &[
            "AIzaErg9y3JkOBid0szTdKNSn6W--MstzH2GfLG",
            "AIzaSyXlkH8B_xB7jaSXbdsbIL08-jEgACYGxYr",
        ],
    ),
    (
        "google-oauth-secret",
        &[
            "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",
            "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",
        ],
    ),
    (
        "google-oauth-token",
        &[
            "ya29.a0jNTkbijb94fwAjqFCzPuObG9_qkcwiGBgn5W0EbgEbbbpIput_UATIAnVH4V0Mt4xhll0rOxTxQqtumjm4pzwVJ2rD8ctahJnlByytUuqS4vyVeehEeVYbDWlB2w79BugHP44uuf7uw6FPblH0Z1jJ",
            "1//0dPJ3-87UZ6JGx6ZbjBfEe2lzJY4gVFtvEshT0nem2OjssSff1Kf2OOZHIp2FLmeEdMxx6DKvv4VNib4OMuiW0q5ck4-zLGZJw7O",
        ],
    ),
    (
        "npm-token",
        &[
            "npm_u0jW6jB5KU78EPIQ02LlMju9rYJJpN4s9v12",
            "npm_0nqhKF0CkH1iRXyuiFZnRcP05zHK5MZ5a4dT",
        ],
    ),
    (
        "pypi-token",
        &[
            "pypi-AgEIcHlwaS5vcmcg-gTjS0BeqhLluoquum5Y7K5-1vMV7Tp4Mt-Lh0_C64yhGED-MRyWd0gmvJR90UzzRFDOwjip2QZgf33NCWFwZDYNDnt_Hs1wpTwZnlNjzXQfivDwPxC5krcElGcubPpWsHSQh1SLKsl2pTqHBdZz1",
            "pypi-AgENdGVzdC5weXBpLm9yZwtWW-wzo9JsGP3DL9bLRTegznI0ssgjLQlQRCCCMqOiZzyeHAE7hgfO4aqv-YgcrJlSw9MI3-nE-5QqDKY9jMDMO6n9Dm4MDjreQ0dyg-xpZww_RgsDWsGBNa",
        ],
    ),
    (
        "docker-hub-token",
        &[
            "dckr_pat_HYM42T-D_u4oZZXvGOC5HhzohW5",
            "dckr_oat_ILyZpTZ5VNhggAeWgEfXFmsX-AT_E1KQ",
        ],
    ),
    (
        "huggingface-token",
        &[
            "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",
            "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",
            "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",
        ],
    ),
    ("twilio-key", &["SKefb5250f5a2d5a1fac1f79f1bf65ce9c"]),
    (
        "twilio-account-sid",
        &["AC838b3ee45a35fbbecbff30f04921b349"],
    ),
    (
        "sendgrid-key",
        &[
            "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",
            "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",
        ],
    ),
    (
        "mailgun-key",
        &[
            "key-4de648c6b480f08ed18d17266ede9880",
            "key-gb9533n9jtq9fj3twrbbbufk1vcyg0vg",
        ],
    ),
    (
        "shopify-token",
        &[
            "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",
            "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",
            "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",
            "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",
        ],
    ),
    (
        "heroku-key",
        &["HRKU-AAsQ6vs_GgqSfc8gcz7A4bsKE-LTTQO_Yi99qa9eQpdl7RR3DC6iqn2Kf9jU"],
    ),
    (
        "digitalocean-token",
        &[
            "dop_v1_1a83f417988582223c4d077dbbc4d68ff6805e139d9218fc1a3b17741740dbc0",
            "doo_v1_9d9bde37753d1c6b278fae1bd903bd3f6d759034744d864c449060390b3886e5",
            "dor_v1_7a4f4e21616b8163f37d6b8f0c32d2de4fdcfae07f86e581e4f7e0c28cb9461d",
        ],
    ),
    (
        "atlassian-token",
        &[
            "ATATT3xFfGF0GVl2w8UtgstjlGlDzF1eVNcXFuZLEgyqgcoJObCBj38AP34VNeE0A1zye7KQ5ZGcOuEW2BsNdddv3_ux3p1PQQ7L3TT0ASd2wQOgoJ0jreVhKYCVqnrRMoysJBWEtRU45ePFZkRJNLAdaNuYG1rxRjbp-NOIbahaTNKd92QATR=24dcb094",
            "ATBBuXGgMAmRLkGCW70C1u05uyAiR2Xpu5TN",
        ],
    ),
    (
        "square-token",
        &[
            "sq0atp-7t4izSSDXqzai-TSofZQNf",
            "sq0csp-mkKO_ODDFH9rJ9HFGEMiyWLNWLmrxNCWB7i3L8k-gHf",
            "EAAAxf3nOT0POsbDAJSTQh8aI09YoP1k_u468dhphm_-RwGqrODOKOFV36Kecyvp",
        ],
    ),
    (
        "jwt",
        &[
            "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiMzUwMzM5MTMyOCIsICJuYW1lIjogIkphbmUgRG9lIiwgImlhdCI6IDE1MTYyMzkwMjJ9.OkUve7s1EiPbgEZqgf3Ob7CGqfqmsCr39hspzZloUSh",
            "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiNjE4MjMzODM4NSIsICJuYW1lIjogIkphbmUgRG9lIiwgImlhdCI6IDE1MTYyMzkwMjJ9.XLFC3R35zw6PbD1TJcfD-v9uho3k7eQK_uDP3ukv1d_",
            "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiMzM1Njc4ODc0MyIsICJuYW1lIjogIkphbmUgRG9lIiwgImlhdCI6IDE1MTYyMzkwMjJ9.G5j3-d-q5XJ9wbK6e0tx4w-WxO4WZEF03C_WAnkREBN",
        ],
    ),
    (
        "age-secret-key",
        &["AGE-SECRET-KEY-1MAG88UWD8VRVK49P68DWU69SLWWFRHJJTW62ANPSAMC8NZ55MKN2H7NNMG"],
    ),
    (
        "vault-token",
        &[
            "hvs.CvB3gr5ILKQxHBH-5PC_xwjkPD3fLALT2kNzxvAe_IFJw5meIEc6YSnIrZmWyYE88SZ-YS-o2NwKONEVT-KxOPE3xy",
            "hvb.B7hSl8YSvqTsHUZgtRxSf-3ur0VOHVn8xfnJSI16yJhstcrgmQl553hdTjwptprTF8yXJU81YI1OPQc8GQ91Fj_cvbOjzwtjNu0ei1HDA3_sINSGnWP2XLE5",
        ],
    ),
    (
        "databricks-token",
        &[
            "dapi35ccdaae9ee3b5bbad1044f99b678a22",
            "dapi53932598e7e3b13f3fd7e5c39cd1d6df-2",
        ],
    ),
    (
        "doppler-token",
        &[
            "dp.st.Auw7wmSZv3hqqcm992Rl1gbHvXt3niiYdkHHXMu7nJD",
            "dp.pt.LTBM967A2MZO5SKUX3LPPobtzRJuA4eSgjSAjifuA0M",
        ],
    ),
    (
        "linear-key",
        &["lin_api_f22R4s7t9cqdMVd8Q2SSR0BnUnYCsHKwhHpEDHty"],
    ),
    (
        "postman-key",
        &["PMAK-d9bca4bd9c97fc1a058151e5-7211fd39e642591fb861d8ba52433838a0"],
    ),
    (
        "sentry-token",
        &[
            "sntrys_eyJpYXQiOiAxLCAidXJsIjogImh0dHBzOi8vc2VudHJ5LmlvIn0_zPD7qrGPEgWzRGCbRbaqo8q4QwXy79kJ6msvr7V2vvd",
            "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",
        ],
    ),
    ("newrelic-key", &["NRAK-ZFGCDBI5LYMFFVVJY500IK5WKQM"]),
    (
        "telegram-token",
        &["6882134905:AA-PJ0Mnv97wM_SlOSn8cCdSrTifXZEYzXv"],
    ),
    (
        "discord-token",
        &["MT2SMl7YXqTvuyIxZeqaksNbtt.KHWnfV.aEpVwKZgTi9muX9rZ2IgvDT6q3k9NtDjlG_NnF"],
    ),
    (
        "azure-client-secret",
        &["Qix8Q~x1Fu-1MZaZN4efItW_abq4BbjUknjC6NEB"],
    ),
    ("mailchimp-key", &["1ab24191975101243d532707e8acd1b5-us14"]),
    (
        "grafana-token",
        &[
            "glsa_VT5d8TveCG88T5FyJcAXXoxEOMqULZ0J_05b7db7e",
            "glc_NHN2cmNFVFdoNTN3OGVqbm8yOGZnSE5jaVBDWnBhd2l4QkVnclB0a3BWNm5COGRYUTYwckp2em1nV2NZ",
        ],
    ),
    (
        "supabase-token",
        &["sbp_e1913906b0fd9a3bae796b50ea67a79878f682d0"],
    ),
    (
        "pulumi-token",
        &["pul-596973dcc00db1d8d370b275cd3a9a1c1afed8f5"],
    ),
    (
        "netlify-token",
        &["nfp_rOsQQgrxygKbLuyVxLdqcjkaJdHVlnGgb1OFBgeQ"],
    ),
    (
        "facebook-token",
        &[
            "EAACEdEose0cBAAlLs1dYbzzCcJK1q5z8GKGd2uZ8gCdU0TW2RFWYGzvrOEILPDU6qB2ELqSrfVTT9t1wYuQn9LJkpBY6abAelR9ilymKGaEqyoeNZ",
        ],
    ),
];

/// Where a token turns up; `@@` is the token. The names around it are
/// neutral, so that only the token's own shape can give it away.
const CONTEXTS: &[&str] = &[
    "@@",
    "my key is @@ ok",
    "{\"value\": \"@@\"}",
    "{\"data\":{\"v\":\"@@\"}}",
    "value: @@\n",
    "- '@@'\n",
    "export VALUE=@@\n",
    "VALUE=\"@@\" ./run.sh",
    "curl 'https://api.example.com/v1/items?value=@@&page=2'",
    "(@@)",
    "[@@]",
    "<@@>",
    "`@@`",
    "see @@.",
    "@@, then",
    "a\\n@@\\nb",
    "\t@@;\n",
    "key=@@|next",
];

/// Secrets given away by where they are (a name, a header, a URL, a key
/// block), each between « and »: those parts must be masked, and nothing
/// else.
const MARKED: &[&str] = &[
    // env
    "export AWS_SECRET_ACCESS_KEY=«E7xjt/5SmzVQzTgaIMqRGqMz3I4UB9wJ1/LDIFjR»",
    "[default]\naws_access_key_id = «AKIAIDVWTFKTANGPVYQE»\naws_secret_access_key = «j7n5uQLd165rqPSyt0xpx3jNufQBhpcFq0tU3N4f»\nregion = us-east-1\n",
    "AWS_ACCESS_KEY_ID=«ASIABEMZUMLENMWFQTRI»\nAWS_SECRET_ACCESS_KEY=«VZ4qeUf8b6BWZP26CiYjtgQ5WqCksccNvHZKvXZe»\nAWS_SESSION_TOKEN=«IQoJb3JpZ2luX2VjEA1C5EzuPvGsIExAWlSSsS7xfj5PyMjZkKkPi/7uKZGBcAlZm0JhavS0NgapKJQUAATJ21G7EsxxkB1itza4V+bKjCey2gULsM570bqjc1Did6yPBtxORogbFdAg+zS6FswLQSbHusEAx1TGcYXAB3I5KeiWEnBHT4tIH9xu3J7tf4Ji4+3U1QLenuVB6jtHtC9dJpz1iWmO/gU2BAvEqDg/kjE4kAqUt8tzypHIB0Lhsq+aMalxvjcFGLo9YQyoaPTgfKhnsLgRj0iDRZ7OaTvBnxPpYnFsdqecDAcwNfzUh==»\n",
    "DB_PASSWORD=«s3cr3t-P4ss»",
    "export PGPASSWORD='«hunter2hunter2»'",
    "MYSQL_ROOT_PASSWORD=\"«Tr0ub4dor&3»\"",
    "    environment:\n      - POSTGRES_USER=app\n      - POSTGRES_PASSWORD=«SO2yywx4ingok8OL»\n",
    "SECRET_KEY_BASE=«9daac6b5a638df3addfbc7d22235cf66c56c441531260951d76b22068e5088f4ab65d7358f5bbec02d78ee08ecf9bb3e48ceaed8a089e8a6f7c7e68927781ffa»",
    "DJANGO_SECRET_KEY='«django-insecure-(@%q)wdku@=8@y5qyj#1!jr_f&u#=w7q9dl-9!#4swjv)of5r7»'",
    "JWT_SECRET=«pt6FuhuaonkAlXkxMqGJALl4FqdntdqM»",
    "OPENAI_API_KEY=«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»",
    "export SLACK_BOT_TOKEN=«xoxb-543034082470-1434766027622-9KOVkyqwGUWJRNsOIQsWCa0l»",
    "TWILIO_ACCOUNT_SID=«AC838b3ee45a35fbbecbff30f04921b349»\nTWILIO_AUTH_TOKEN=«f9269760f8d8ecbc512d49df9dff5204»\n",
    "HEROKU_API_KEY=«5bc1aee7-ce4c-1737-01b1-94ffdd2166d8»",
    "CLOUDFLARE_API_TOKEN=«Gi1m7wNcSXOMLtaFbpdUioDZtv0MEhBUxBTRvTRz»",
    "DD_API_KEY=«4e4a80c3c744966e3546d6968e09dfd3» DD_SITE=datadoghq.eu",
    "docker run --rm -e DB_PASS=«P@ssw0rd!2024» -p 8080:8080 app:latest",
    "SMTP_PASS=«WQRmFIjHaifxMbQNGToiYKmY»",
    "REDIS_PASSWORD=«tUwIicoICzx52JsfAl4b5GS0LS2ddnnP»",
    "//registry.npmjs.org/:_authToken=«npm_u0jW6jB5KU78EPIQ02LlMju9rYJJpN4s9v12»",
    "[pypi]\n  username = __token__\n  password = «pypi-AgEIcHlwaS5vcmcg-gTjS0BeqhLluoquum5Y7K5-1vMV7Tp4Mt-Lh0_C64yhGED-MRyWd0gmvJR90UzzRFDOwjip2QZgf33NCWFwZDYNDnt_Hs1wpTwZnlNjzXQfivDwPxC5krcElGcubPpWsHSQh1SLKsl2pTqHBdZz1»\n",
    "PRIVATE_KEY=«0xc3f6866e55c5cee908b44cacef9eae2b8fc70402b6270e1e57639415350e903a»",
    "MNEMONIC=\"«abandon ability able about above absent absorb abstract absurd abuse access accident»\"",
    "STRIPE_SECRET_KEY=«sk_live_4S03h4hbZtO11LFj8hNhBMjF»\nSTRIPE_WEBHOOK_SECRET=«whsec_JldyWoW6U9Ar9VHkRelm3ptr1nrb89ti»\n",
    "GITLAB_TOKEN=«glpat-dnfECc2xbNDaWdoqNdTO» glab mr list",
    "set -x; export HF_TOKEN=«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»; python train.py",
    "$ env | grep -i key\nANTHROPIC_API_KEY=«sk-ant-api03-xIOF8W2whyeTYLsEwnq_1hBjlp0q98H86nzXLM9zeeCUYLqiRsK0zjGEYAe7pKvvvx-TI8q3-tctJp3cz1LZ89Hbpvme8AA»\nSENDGRID_API_KEY=«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»\n",
    "CLIENT_SECRET=«o5Qvbd996UqvBbLuQ6ow1luxhf4EI3_Bcc»",
    "app.secret_key = '«df30670a1da8e64a33349a3149c4b7623fe52000b2002c12»'",
    "spring.datasource.password=«correcthorsebatterystaple»",
    "mail.smtp.password : «x9$Lm#2qVr!»",
    "PGPASSWORD=«secret» psql -h localhost -U app",
    "kubectl create secret generic db --from-literal=password=«P@ssw0rd!2024»",
    // json
    "{\"password\": \"«P@ssw0rd!2024»\"}",
    "{\"installed\":{\"client_id\":\"069690055700-c8zhxw7xfvzk1bga9uw09jh1deonxy6q.apps.googleusercontent.com\",\"project_id\":\"demo-1234\",\"client_secret\":\"«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»\",\"redirect_uris\":[\"http://localhost\"]}}",
    "{\"api_key\":\"«560eb8b2210d8e4a82335581ce664f20»\",\"region\":\"us-east-1\"}",
    "{\n    \"Credentials\": {\n        \"AccessKeyId\": \"«ASIABEMZUMLENMWFQTRI»\",\n        \"SecretAccessKey\": \"«ydIhwoY5DBvkUNK74eDAPR6Q5VytgJ4Lwy6X/Fc0»\",\n        \"SessionToken\": \"«IQoJb3JpZ2luX2VjEA1C5EzuPvGsIExAWlSSsS7xfj5PyMjZkKkPi/7uKZGBcAlZm0JhavS0NgapKJQUAATJ21G7EsxxkB1itza4V+bKjCey2gULsM570bqjc1Did6yPBtxORogbFdAg+zS6FswLQSbHusEAx1TGcYXAB3I5KeiWEnBHT4tIH9xu3J7tf4Ji4+3U1QLenuVB6jtHtC9dJpz1iWmO/gU2BAvEqDg/kjE4kAqUt8tzypHIB0Lhsq+aMalxvjcFGLo9YQyoaPTgfKhnsLgRj0iDRZ7OaTvBnxPpYnFsdqecDAcwNfzUh==»\",\n        \"Expiration\": \"2026-11-30T18:00:00Z\"\n    }\n}",
    "{\n  \"type\": \"service_account\",\n  \"project_id\": \"demo-project\",\n  \"private_key_id\": \"055fb3c94eabe43b8d0e2ef6ba78446cf6b70e5b\",\n  \"private_key\": \"«-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCMHlgHlgSz7qhxxQ99VVBxAPqkUOEKI8F\\nwbGS37sFVTSbpFPfh9vJQxw+DmpwVhTe5eu9AM4m/V9A7+HnSYHkjh6kgYaXpni+\\nPDj3onecQ18cwyA1xnu5gMPzz9m0g1vKzd6ZmX8I5CGz5H8jO06dlhZRaKUwekDe\\nwWkJomD9QGdW6o5eIaqhO9LV9VBtC4YeE7jXj5DFucJn1ei5GBbSk4lxTnXRQA8f\\n8WimkcjtFaq0RYrjOaxWa5xP6t+rhX4zI6WTkcZsIVM=\\n-----END PRIVATE KEY-----»\\n\",\n  \"client_email\": \"deployer@demo-project.iam.gserviceaccount.com\",\n  \"client_id\": \"439518834338941885207\"\n}",
    "{\"auths\":{\"https://index.docker.io/v1/\":{\"auth\":\"«YWxpY2U6ZGNrcl9wYXRfbUFIcVp2M1N2Q2FmTUJ6bWE4U2xJRXZaM0NZ»\"}}}",
    "{\"token\":\"«7XrDMVuP5fnghUPSCRjqIuwy6g3i2GkKyoDkZ652»\",\"expires_in\":3600}",
    "{\"body\": \"{\\\"password\\\": \\\"«s3cr3t-P4ss»\\\"}\"}",
    "{\"access_token\": \"«ya29.a0jNTkbijb94fwAjqFCzPuObG9_qkcwiGBgn5W0EbgEbbbpIput_UATIAnVH4V0Mt4xhll0rOxTxQqtumjm4pzwVJ2rD8ctahJnlByytUuqS4vyVeehEeVYbDWlB2w79BugHP44uuf7uw6FPblH0Z1jJ»\", \"refresh_token\": \"«1//0dPJ3-87UZ6JGx6ZbjBfEe2lzJY4gVFtvEshT0nem2OjssSff1Kf2OOZHIp2FLmeEdMxx6DKvv4VNib4OMuiW0q5ck4-zLGZJw7O»\", \"token_type\": \"Bearer\"}",
    "{\"headers\": {\"Authorization\": \"Bearer «En9U5NHKC43RzdP1Y56wlCtUvXHAEftpk_wchTKx»\", \"Accept\": \"application/json\"}}",
    "{\"secret\":\"«28ATlmAuWcCzgkkZaU6PKlTc»\"}",
    "{'password': '«Tr0ub4dor&3»', 'user': 'admin'}",
    // yaml
    "database:\n  host: db.internal\n  password: «s3cr3t-P4ss»\n",
    "  db_password: «hunter2x»\n",
    "secret: \"«QqfS33dJl9eigsWU9JylC2dlbwDmD0»\"\n",
    "apiVersion: v1\nkind: Secret\ndata:\n  password: «aHVudGVyMmh1bnRlcjI=»\n  api-key: «NFZDV1ZSUllUQ3ZzTjJ4TGN4ZlJsVUNVRXZ3U0x5»\n",
    "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURJVENDQWdtZ0F3SUJBZ0lJ\n    client-key-data: «LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBZGlub0N4RWU4SEk4WVlhYWJIQWRENGRlaCtlL0k0dWNNSm1GR1BLZmltVC9LdVRmCmFNVEhndFZoTXJNZjJSU2g1MFlTYk4zdjdDWTZCRXZPcGQ5VGdVUU1pS2lDdTdycHlNREVOSWRjZENNUGVZS0EKSFRPSWUrSGo2NWdpTVptdWJsdXBib2FKVkk2MlRBUUR1QU5QN2NLQ0VWb2wwZitVZ1NDMmQ1MG4zMnpxT05lNQpNWFVVK2tCU1JTRGlHMlV4MlNNWG01M2w3MUxJNDFwZDU1WFBjUnp5YWs3c2dUdUpaa1VaQkZvLzNtV2d5OURkCmJDVSswVlQxdXJFbVJhL0J0bDF0S2N6SDRVME92U0hKQ0s0NEJqZjVpWE1Gajd2eWIrYlBSOUJ1WGlZbGk1NFoKaDNURTBtU2FkSEI0Tkx0Ym5aUjFiV1dGTXJtTC9UWW5OODFVeEdwOThTVk4yQ0hiZk9vZmFLOVNsMlgvc0VreAorYkswaTFjc0N1b3d1ZnVtVXlOMkpYd3dZQXVRSjdHRAotLS0tLUVORCBSU0EgUFJJVkFURSBLRVktLS0tLQ==»\n",
    "github:\n  token: «ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ»\n",
    "- name: deploy\n  env:\n    API_TOKEN: '«rYO65SojP6eVcvecMiMZxYqxPkKyHfja»'\n",
    "smtp:\n  pass: «x9$Lm#2qVr!» # rotated monthly\n",
    "credentials:\n  access_key: «AKIAER4UISCXD5M2LJG2»\n  secret_key: «j7n5uQLd165rqPSyt0xpx3jNufQBhpcFq0tU3N4f»\n",
    // code
    "[database]\npassword = \"«correcthorsebatterystaple»\"\n",
    "api_key = '«HxIFU94qk4tbeCHiSTEdA411kdx3K3C7»'",
    "[github]\n\ttoken = «334a287a820e8d8665181d6cbf1d359a0e6f7aec»\n",
    "password = \"«P@ssw0rd!2024»\"  # TODO: move to vault",
    "const apiKey = \"«uPXWQv92DBeMRidu09WV02U0IBaNoNzk»\";",
    "let secret = \"«93qmjjAonNPiCjq0X6lcIoTS»\";",
    "client.login(username=\"bot\", password=\"«s3cr3t-P4ss»\")",
    "$config['db_password'] = '«x9$Lm#2qVr!»';",
    "'password' => '«SO2yywx4ingok8OL»',",
    "  :password => \"«P@ssw0rd!2024»\",",
    "dbPassword := \"«Tr0ub4dor&3»\"",
    "| staging | PASSWORD: «WQRmFIjHaifxMbQNGToiYKmY» |",
    "**Password:** «Xyz12345»",
    "<settings><servers><server><id>nexus</id><username>deploy</username><password>«s3cr3t-P4ss»</password></server></servers></settings>",
    "private static final String API_KEY = \"«Lv6x3weDvI6Sgff562zHrOdE7wjOjnFA»\";",
    "const API_KEY: &str = \"«w2ByYkvVqEUlmJmnf9xFMdOd8w1oJaM0»\";",
    "const apiKey: string = '«0xlm3wfHANyP5F22RKvxk5nZJljrSwzi»';",
    "var dbPassword string = \"«WQRmFIjHaifxMbQNGToiYKmY»\"",
    "SECRET_KEY: str = \"«cd09c35f8eee8b3e49a2037bc2a9437222d5d92e0a5edac8ab»\"",
    "app.config['SECRET_KEY'] = '«06a49880fcc14b2f6923f3a0»'",
    "process.env.API_KEY = \"«wxOlVPVnIkKPdvoduCPP0igWkN2bAbB9»\";",
    // header
    "Authorization: Bearer «En9U5NHKC43RzdP1Y56wlCtUvXHAEftpk_wchTKx»",
    "curl -H \"Authorization: Bearer «En9U5NHKC43RzdP1Y56wlCtUvXHAEftpk_wchTKx»\" https://api.example.com/v1/me",
    "curl -H 'Authorization: token «ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ»' https://api.github.com/user",
    "Authorization: Basic «YWxpY2U6TlhoeERia2VlNGtGYlU=»",
    "curl -s -H \"X-API-Key: «b4cc2ec2647e7956670fcc8e5434658c»\" https://api.example.com",
    "PRIVATE-TOKEN: «glpat-dnfECc2xbNDaWdoqNdTO»",
    "Proxy-Authorization: Basic «YWxpY2U6TlhoeERia2VlNGtGYlU=»",
    "> GET /v1/data HTTP/1.1\n> Host: api.example.com\n> authorization: Bearer «eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiMzUwMzM5MTMyOCIsICJuYW1lIjogIkphbmUgRG9lIiwgImlhdCI6IDE1MTYyMzkwMjJ9.OkUve7s1EiPbgEZqgf3Ob7CGqfqmsCr39hspzZloUSh»\n> accept: */*\n",
    "requests.get(url, headers={\"Authorization\": \"Bearer «En9U5NHKC43RzdP1Y56wlCtUvXHAEftpk_wchTKx»\"})",
    "the request had Bearer «eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.eyJzdWIiOiAiNjE4MjMzODM4NSIsICJuYW1lIjogIkphbmUgRG9lIiwgImlhdCI6IDE1MTYyMzkwMjJ9.XLFC3R35zw6PbD1TJcfD-v9uho3k7eQK_uDP3ukv1d_» in it",
    "x-auth-token: «b5d6ffc3-8dca-0853-de14-b32c4e994977»",
    // url
    "DATABASE_URL=postgres://app:«s3cr3t-P4ss»@db.internal:5432/app",
    "postgresql+psycopg2://scott:«hunter2hunter2»@localhost/test",
    "mongodb+srv://admin:«wC6Ltb4cvSRcBD17»@cluster0.ab1cd.mongodb.net/prod?retryWrites=true&w=majority",
    "REDIS_URL=redis://:«OEbqgA2sfkrwXYr6WKc5VURygDaFMxAa»@redis.internal:6379/0",
    "rediss://default:«OrPouMXJcsYMWhuqBuWnvKBMlA6vAl3N»@eu1-fancy-cat-31415.upstash.io:6379",
    "amqp://guest:«x9$Lm#2qVr!»@rabbitmq:5672/%2F",
    "mysql://root:«p@ss!w0rd»@127.0.0.1:3306/app",
    "see https://alice:«WQRmFIjHaifxMbQNGToiYKmY»@intranet.example.com/reports for details",
    "git clone https://x-access-token:«ghs_Fm7BEKAT3TqFZA7oIzMc0pYJzvItJ17FO6bB»@github.com/acme/app.git",
    "git remote set-url origin https://«ghp_d0WpixpxbB4r6bSr0pFBOPCWBRDFOxEzf5FJ»@github.com/acme/app.git",
    "https://oauth2:«glpat-dnfECc2xbNDaWdoqNdTO»@gitlab.com/acme/app.git",
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/«TB9TEEX9C/BOWHYLNNR28/mBfWctAob3mxkau3MJNqeNVD»",
    "curl -X POST https://discord.com/api/webhooks/«775925330436591597/rBgBMcqRabjbQTQ2-SxNYIicUYHXa0ZJNudcdyc3jIzLFwhYwdcKetrgWLhNFxo5HcIx» -d @msg.json",
    "GET /oauth/callback?code=abc123&client_secret=«q_TK_uaiGEiIdlNOnMCsHvjyzL1wNgpL»&state=xyz",
    "https://acct.blob.core.windows.net/c/report.pdf?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&spr=https&sig=«ROczhorzQCRayogVesWo%2BTrLqRoXk4yzdGecr%2ForPY%3D»",
    "https://bucket.s3.amazonaws.com/key?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=«AKIAIDVWTFKTANGPVYQE»%2F20261130%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261130T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=«ac2a53c766f0193a345471774b6d8c40b3c8a6b4ec9979d80275ecd7a1584e25»",
    "DefaultEndpointsProtocol=https;AccountName=acmestorage;AccountKey=«s+jBlO/kDm8ezwdNjft8mDyrS30pPU1mrYsuRchrjZVKu2K+cwZs90qVRzuS6/mMl6hQK47yqL3twC6V4EBApQ==»;EndpointSuffix=core.windows.net",
    "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«YCNCVLHEOOKwg8Rh0YXIY3r775VEbb+yMlRtftbeGLc=»",
    "Server=tcp:acme.database.windows.net,1433;Initial Catalog=app;User ID=admin;Password=«P@ssw0rd!2024»;Encrypt=True;",
    "jdbc:mysql://db:3306/app?user=root&password=«s3cr3t-P4ss»&useSSL=false",
    "https://api.example.com/v1/items?api_key=«ee2ed678f3e617c27e648259a8341879»",
    // netrc
    "machine api.github.com login octocat password «gho_tRBZRAJyu5BKaCKvsYFJGufE0w6HjwXmDMwm»",
    "machine example.com\n  login alice\n  password «s3cr3t-P4ss»\n",
    // flag
    "docker login -u alice --password «P@ssw0rd!2024» registry.example.com",
    "mysql -h db -u root --password=«Tr0ub4dor&3» app",
    "vault login -method=userpass username=alice password=«SO2yywx4ingok8OL»",
    "curl -u admin:«P@ssw0rd!2024» https://api.example.com/v1/me",
    "curl --user 'deploy:«s3cr3t-P4ss»' https://ci.example.com",
    "mysql -h db -u root -p«Tr0ub4dor&3» app < dump.sql",
    "aws configure set aws_secret_access_key «VZ4qeUf8b6BWZP26CiYjtgQ5WqCksccNvHZKvXZe»",
    "git config --global github.token «3bb52884bf649b86ed40f6f39442921385512ca5»",
    // private-key
    "$ cat key\n«-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAdinoCxEe8HI8YYaabHAdD4deh+e/I4ucMJmFGPKfimT/KuTf\naMTHgtVhMrMf2RSh50YSbN3v7CY6BEvOpd9TgUQMiKiCu7rpyMDENIdcdCMPeYKA\nHTOIe+Hj65giMZmublupboaJVI62TAQDuANP7cKCEVol0f+UgSC2d50n32zqONe5\nMXUU+kBSRSDiG2Ux2SMXm53l71LI41pd55XPcRzyak7sgTuJZkUZBFo/3mWgy9Dd\nbCU+0VT1urEmRa/Btl1tKczH4U0OvSHJCK44Bjf5iXMFj7vyb+bPR9BuXiYli54Z\nh3TE0mSadHB4NLtbnZR1bWWFMrmL/TYnN81UxGp98SVN2CHbfOofaK9Sl2X/sEkx\n+bK0i1csCuowufumUyN2JXwwYAuQJ7GD\n-----END RSA PRIVATE KEY-----»\n$ ",
    "$ cat key\n«-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIgQaqsxLvnXe2mdngccCAVpLQgpQ3nun6lYX/feydMFNCdiPh0X7ieAp\nBOgDKF9KdjEON0/7U3QG09WN2vF8NLvhOTDhkpWvw0779aQoil2D13bzNl+ZSSvT\nu\n-----END EC PRIVATE KEY-----»\n$ ",
    "$ cat key\n«-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtz\nc2gtZWT6XaSjnUz2Ths5TSmKa079Y53eewNkbHcfp7yJeEZSHAcAzs85vzC6BKyo\ncH9AB+zNFWuuRSjNubq7Wb2i/zDZ6W/vS/uZ/dmpvmDIAzscyXH+vyyLkEHakwwN\nN3Tjwp/TG9Pr0qwKo/0kCPPAlrpPiGrO1JfQYRE5es0Jua6W86QnJFG6JfVqVA2g\nseuGlN4/Lun6CVBsJmJ+ulakzI7Q==\n-----END OPENSSH PRIVATE KEY-----»\n$ ",
    "$ cat key\n«-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCMHlgHlgSz7qhxxQ99VVBxAPqkUOEKI8F\nwbGS37sFVTSbpFPfh9vJQxw+DmpwVhTe5eu9AM4m/V9A7+HnSYHkjh6kgYaXpni+\nPDj3onecQ18cwyA1xnu5gMPzz9m0g1vKzd6ZmX8I5CGz5H8jO06dlhZRaKUwekDe\nwWkJomD9QGdW6o5eIaqhO9LV9VBtC4YeE7jXj5DFucJn1ei5GBbSk4lxTnXRQA8f\n8WimkcjtFaq0RYrjOaxWa5xP6t+rhX4zI6WTkcZsIVM=\n-----END PRIVATE KEY-----»\n$ ",
    "$ cat key\n«-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQIhwraxa818TmKxy45\nwWrfScqRWuE8HsGcgEikhoIdNpPju3dMjVlRfsZAXm5I9RVhO2kswbsapojzE2RM\nd19ivv+ogPZgxGSTW9MAoya8spEUUfJpS0fW0fUINSD8qjP15UmkOJKeecQEscjf\nNYp9LrO1opBFFQwe5BNekRQYpepDobAwwdZ1QE4g+KKzpZa8y1Va8Xpyx3lsxOta\naYb0MbuT2LhAWH90bOfM3PgGPHw497wyX4LxxaORQoC6DqOagywKMNS9KQc=\n-----END ENCRYPTED PRIVATE KEY-----»\n$ ",
    "$ cat key\n«-----BEGIN DSA PRIVATE KEY-----\nMIIBuwIBAAKBgQD8XUzti/QqiN1PJEeU07umVFhBZkW2WojBbvSZEALxJRI+K31D\n/A7kbjNzJCgdW4OSw077kYv00XG1WuVcfp2HzOgBba87F2P1FX5UY5VRjUSxK5j4\nkBDndnX1Dmi0+AF7Kd3j2oLSnKI91qHxrLrdVsotEatybMbKsHSnlbNwTLKbfHzN\nxAh/4w4GdNvw9apGKNudvrU\n-----END DSA PRIVATE KEY-----»\n$ ",
    "$ cat key\n«-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,E58E9EC416342221F62E74722AA5BB58\n\nMIIEpAIBAAKCAQEAeMxu2JIp71jWwmidpFbPfY2H+z+mhXWpkoyerSdJC+dMtGY5\nfD4xHwk+pVnAB6dUbHr7YGoZEohk7QHPABqNYvYDE08GUYxXrqo8OnGglfJZsETT\n5vg3QDkodylHrArqYOeexv8f/ujQMYykMZ3OLJoRF09G7mL9Zxs9qdom0htiwgBQ\ngxE4EnJQ1YQ/FN8uqlPBuhsO9aeRTZ0YPV0AZ7noRl9r1FvcTGMLypjOVZSy3osa\nNUrUD50F+2hASZIpM+gKXSwEQUQ=\n-----END RSA PRIVATE KEY-----»\n$ ",
    "$ cat key\n«-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: GPGTools - https://gpgtools.org\n\nlQOYBGXUTDyMDL+GFQdCqomU67fu7JGpCifFk7S9EE8M/nMyvXfLdWRRPiWq1WNu\n97d/u8EAGHVNHfB6TI2AH90wRXglM1wpoSVyUaKxdnMrnHwArSG2BDOgNlMqUU9d\nzE0U4kWC+12C96m/he6pO5ffOqHxGMOrO5Zc3yZ7r9ZnfhaAhP1y9657vTLJ8SKj\nk5ziLj3irh8hL+q6AxAwC6HZ64lDWsoKs3eQGLmLE9FzFol7RcwdkdD0oZieW6tC\neL1KjXH8Bup2QMIL2490j9tL0qmcxX9JNwibyIfw8gUvqFz0Pj//TxQ5Tzz09gy3\nNKZOKSzRNJyRmpqSor9b92Bb55CmLusWhYVOChnCRuGQdpr5smzYN7yHJFxVGScV\nnitFjMj1v8yjiyYcjUTD4tK\n=DaAs\n-----END PGP PRIVATE KEY BLOCK-----»\n$ ",
    "  tls.key: |\n    «-----BEGIN RSA PRIVATE KEY-----\n    MIIEowIBAAKCAQEAdinoCxEe8HI8YYaabHAdD4deh+e/I4ucMJmFGPKfimT/KuTf\n    aMTHgtVhMrMf2RSh50YSbN3v7CY6BEvOpd9TgUQMiKiCu7rpyMDENIdcdCMPeYKA\n    HTOIe+Hj65giMZmublupboaJVI62TAQDuANP7cKCEVol0f+UgSC2d50n32zqONe5\n    MXUU+kBSRSDiG2Ux2SMXm53l71LI41pd55XPcRzyak7sgTuJZkUZBFo/3mWgy9Dd\n    bCU+0VT1urEmRa/Btl1tKczH4U0OvSHJCK44Bjf5iXMFj7vyb+bPR9BuXiYli54Z\n    h3TE0mSadHB4NLtbnZR1bWWFMrmL/TYnN81UxGp98SVN2CHbfOofaK9Sl2X/sEkx\n    +bK0i1csCuowufumUyN2JXwwYAuQJ7GD\n    -----END RSA PRIVATE KEY-----»\n",
    "key = \"\"\"«-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIgQaqsxLvnXe2mdngccCAVpLQgpQ3nun6lYX/feydMFNCdiPh0X7ieAp\nBOgDKF9KdjEON0/7U3QG09WN2vF8NLvhOTDhkpWvw0779aQoil2D13bzNl+ZSSvT\nu\n-----END EC PRIVATE KEY-----»\"\"\"",
    "$ head -4 ~/.ssh/id_rsa\n«-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAdinoCxEe8HI8YYaabHAdD4deh+e/I4ucMJmFGPKfimT/KuTf\naMTHgtVhMrMf2RSh50YSbN3v7CY6BEvOpd9TgUQMiKiCu7rpyMDENIdcdCMPeYKA\nHTOIe+Hj65giMZmublupboaJVI62TAQDuANP7cKCEVol0f+UgSC2d50n32zqONe5»",
    "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-20261130\nPublic-Lines: 2\nAAAAB3NzaC1yc2EAAAABJQAAAQEAoG9OBl/fkAnOnFY4fRAQwNYi7FDpi4QYacAY\npBg7SPC42/kBg8614efaZMRE2MYManUTbbztl+Nng3SVcZJZ/KP4ffL+l2Ak99Rv\n«Private-Lines: 13\nNJqFC8pswwa/gRuqq0QG1/wmkUUD0JkCm28hcWmqK0BhrArFSpd7+KHmBSFuwM3g\n8s0QTNWpdGByBQTszNih/W8sBFGoih2VQEtH+ZuM781MoL9SGisvQLi2ZQyyHzbv\nX+1UZtyCvBllEIqNZdffbs+fEg0dA0aapliQpYGVU06/zMC8BfYmvL60SGt1p9Z2\naDv78PGgY6XbKus1TYjm+KL2ToRKKt7dKEo9FBWLfzFqLh/2D+xELIPaUQS+LFcp\nSrE1gI57zS8jwB3ygI8z2t+WZKvsOjCX719+CpEZLFkfiNe6rHUcRxRbMw5CWx80\nC0wTYO3ksenqUt5iHCfj9SdA/c8d/llkujip8VUlUkFNCXF0Mk7X3/aIVzvHdEsr\nAWqdUyG2Xy6dHiXVRyS+vubpCXVHZbZe+7NT0XIdNxbFN0/5Q97P7d9Gx0NmgocT\nkcVcOrx9gT3r/u7zFcXtU4cLdA1NHyXAPh/jIvNHA7Yt7jxHmhOUJc6C9ut+M8BK\nsUmO7zEwwqFUW76zTE8QQ8uBf01XrBP024fiS2XaFS7GXZedemXbgX0pkvyGfO9a\nE10XYXOko5lrVEnFuslda5KnlmAy/4CSU5Oxqxjbq05boTAX9e7e9pekuhh6GOiC\njDr6Fo6sjNRou0DoWEAVqe8Cyhywg51EijkfbKIF2xa0P4nr5qnrbEJfm6+td5qI\nGDRmjMPJIqJiJFLci0NFCkorxpbONRMNs74zkyA1lc32g1Audkx0KFQsR70t8FFE\nH962BAK6dMG4au1x7k2490C2qgTI5zPH\nPrivate-MAC: 7a9e529f4cc29cf466ef74d97db774e04db4f3fc»\n",
    "server.key=«LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBZGlub0N4RWU4SEk4WVlhYWJIQWRENGRlaCtlL0k0dWNNSm1GR1BLZmltVC9LdVRmCmFNVEhndFZoTXJNZjJSU2g1MFlTYk4zdjdDWTZCRXZPcGQ5VGdVUU1pS2lDdTdycHlNREVOSWRjZENNUGVZS0EKSFRPSWUrSGo2NWdpTVptdWJsdXBib2FKVkk2MlRBUUR1QU5QN2NLQ0VWb2wwZitVZ1NDMmQ1MG4zMnpxT05lNQpNWFVVK2tCU1JTRGlHMlV4MlNNWG01M2w3MUxJNDFwZDU1WFBjUnp5YWs3c2dUdUpaa1VaQkZvLzNtV2d5OURkCmJDVSswVlQxdXJFbVJhL0J0bDF0S2N6SDRVME92U0hKQ0s0NEJqZjVpWE1Gajd2eWIrYlBSOUJ1WGlZbGk1NFoKaDNURTBtU2FkSEI0Tkx0Ym5aUjFiV1dGTXJtTC9UWW5OODFVeEdwOThTVk4yQ0hiZk9vZmFLOVNsMlgvc0VreAorYkswaTFjc0N1b3d1ZnVtVXlOMkpYd3dZQXVRSjdHRAotLS0tLUVORCBSU0EgUFJJVkFURSBLRVktLS0tLQ==»",
];

/// Near-misses: prose, code and data that must come out untouched.
const CLEAN: &[&str] = &[
    // prose
    "The quick brown fox jumps over the lazy dog, 1234567890 times.",
    "Your password must be at least 12 characters long and may not contain your user name.",
    "Enter your password: then press Enter.",
    "Reset the token: it expires after an hour.",
    "Use a Bearer token in the Authorization header.",
    "Basic authentication is deprecated; use Bearer authentication instead.",
    "The secret to good code is simple: tests.",
    "Token: expires in 3 days",
    "Password: ********",
    "password reset email sent to jane.doe+test@example.com",
    "I rotated the API key and the secret yesterday; the password manager has both.",
    "see https://example.com/path?x=1 and user@example.com",
    "ghp_short and sk-short and AKIA123 and xoxb-1 and AIza and glpat-x",
    "password=short",
    // code
    "let token_count = tokens.len();",
    "password_field.set_text(\"\");",
    "def get_secret(name): return vault.read(name)",
    "secret = get_secret(\"db\")",
    "token = self.tokenizer.next_token()",
    "const token = req.headers.authorization;",
    "if password == confirm_password:",
    "if (token !== undefined) { return token; }",
    "    password: String,",
    "  password: string;",
    "    token: Option<String>,",
    "fn verify(password: &str) -> bool {",
    "secret_key = os.environ[\"SECRET_KEY\"]",
    "api_key = os.getenv(\"API_KEY\")",
    "password = request.form.get(\"password\")",
    "self.password = password",
    "auth_token = auth_token_from_env()",
    "f(token=token)",
    "connect(host=host, password=db_password)",
    "let secret = Secret::new(password);",
    "match token { token::Token::Ident(name) => name }",
    "std::env::var(\"GITHUB_TOKEN\").expect(\"set GITHUB_TOKEN\")",
    "password_hash = bcrypt.hashpw(password, bcrypt.gensalt())",
    "signature: Signature,",
    "fn signature(&self) -> &[u8] { &self.sig }",
    "max_tokens: 4096",
    "token_type: bearer",
    "\"tokenizer\": \"cl100k_base\"",
    "secretName: tls-cert",
    "passwordless: true",
    "\"auth\": {\"type\": \"oauth\"}",
    "auth: true",
    ".sk-button-primary-large-size { color: red; }",
    "from huggingface_hub import hf_hub_download",
    "npm_config_registry=https://registry.npmjs.org/",
    "a key-value store with key-management-service-endpoints",
    "export GITHUB_TOKEN=$(gh auth token)",
    "echo \"$DB_PASSWORD\" | docker login --password-stdin",
    // config that only names a secret
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "password: <your-password-here>",
    "API_KEY=your-api-key-here",
    "API_TOKEN=YOUR_API_TOKEN",
    "DB_PASSWORD=",
    "password: ${DB_PASSWORD}",
    "password: \"{{ vault_db_password }}\"",
    "secret: !vault |",
    "- name: DB_PASSWORD",
    "  valueFrom:",
    "    secretKeyRef:",
    "      name: db",
    "      key: password",
    "{\"type\": \"password\", \"name\": \"password\", \"label\": \"Password\"}",
    "<input type=\"password\" name=\"password\" autocomplete=\"current-password\">",
    "{\"forgot_password\": \"Forgot password?\", \"password\": \"Password\"}",
    "PWD=/home/alice/project",
    "OLDPWD=/home/alice",
    "GIT_ASKPASS=/usr/lib/git-core/git-gui--askpass",
    "SSH_AUTH_SOCK=/tmp/ssh-XXXXabcd/agent.1234",
    "password_file=/run/secrets/db_password",
    "token: str = Field(default=None, description=\"API token\")",
    "let token: Option<String> = None;",
    "if password == \"\": return",
    "--- PASS: TestOAuth2Flow (0.00s)",
    "auth=success user=alice method=publickey",
    "token=expired status=401",
    "docker run -u 1000:1000 -v \"$PWD:/src\" app",
    "sort -u names.txt -o sorted.txt",
    "check the api_key parameter before calling",
    "export PGPASSWORD",
    // hashes, ids, encodings
    "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "Merge: 1a2b3c4 5d6e7f8",
    "request_id=550e8400-e29b-41d4-a716-446655440000 status=200",
    "\"integrity\": \"sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==\"",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "image: nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
    "golang.org/x/text v0.3.7 h1:olpwvP2KacW1ZWvsR7uQhoyTYvKAupfQrRGBFM352Gk=",
    "checksum = \"c5d0e4c6b5a3e1d3f4a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0\"",
    "\"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\"",
    "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==\">",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop",
    "arn:aws:iam::123456789012:role/Admin",
    "eyJhbGciOiJIUzI1NiJ9 is only a header",
    "version v1.2.3 at 10.0.0.1:8080 on 2026-11-30T06:12:59Z (12:30:45)",
    "Signed-off-by: Jane Doe <jane@example.com>",
    // URLs without credentials
    "https://user@example.com/x",
    "ssh://git@github.com/acme/app.git",
    "git@github.com:acme/app.git",
    "https://example.com:8443/path?q=a@b",
    "postgres://localhost:5432/app and postgres://app@db/app and redis://cache:6379",
    // markup
    "-----",
    "| key | value |",
    "|-----|-------|",
    // public keys and certificates
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAJ5H+2RxZOkwoq4fh1bPh\nsow9DGHJxL6Xl1p5NGE/rPZNOojoe88N+AMgzhdwLoVG2HDOd6FG5kLd7vytzIpV\npgHA5ITV5JY0blRZ6r/bSlo2qQyVIgKKpkRcpuno00/OBIse7Y3Z4IgflZ0f6tdI\n1z47lufVDrVWWfL/xYHuElpNmQzHdrt+qTcNMvYlmdFX8iIKNcj71lqhse73DC41\nvyxqidjwLraC8ZHWXfsc2uQLRKWXbc60BjKPbNeh2tI4nl0cZzjJGBE=\n-----END PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE7mIyLxeN/MZPkG0ZeZZLj8ReY6wrrfZx0CxT7qWKlxpS\nVZMMc1vTK3tBuhBK/7k3808t2HCu32LltxYR1JZZ+7T9Ln15LeuKhJSY+k9GoX1m\nZ831LSGE3r4jnbCHMN8Lh/lRf5H1ni5rFMBh+MYvnbtvB5iq6fu7DlhjOOzcMk9x\n0hb2Ln0RFSzXx+mkBqmEyrteXJT8Bie0RS0hi8OVxUDh7w/w4kohPdAcmjhRbb+T\n9tZZU72c5yn+7mVfcJ5uG78KDMAFg+MT/voXCKZEYJhwNoMaMhVcWW02SVvRUgq8\n3aKsQrxlok6angsuGMkY7sr/ncmtX6bZ6OdP3qSdtTMP2RdEm92QC81yMH48mLLS\nnK7azdrCUXGeoVm2Oc0cdZ5cnXpDUzA60tHg\n-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY----- abc -----END PUBLIC KEY-----",
];

const LITERAL: &str = "correct-horse-battery";

fn redactor() -> Redactor {
    Redactor::new(&[LITERAL.into()])
}

/// `[REDACTED:kind]` → `[REDACTED]`.
fn without_kinds(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("[REDACTED:") {
        out.push_str(&rest[..at]);
        out.push_str("[REDACTED]");
        let close = rest[at..].find(']').expect("closed");
        rest = &rest[at + close + 1..];
    }
    out.push_str(rest);
    out
}

/// The text without its marks, and what it must become.
fn unmark(marked: &str) -> (String, String) {
    let input = marked.replace(['«', '»'], "");
    let mut want = String::new();
    let mut rest = marked;
    while let Some(open) = rest.find('«') {
        want.push_str(&rest[..open]);
        want.push_str("[REDACTED]");
        let close = rest[open..].find('»').expect("every « has its »");
        rest = &rest[open + close + '»'.len_utf8()..];
    }
    want.push_str(rest);
    (input, want)
}

/// Every text of the corpus.
fn texts() -> Vec<String> {
    let mut all = Vec::new();
    for (_, samples) in TOKENS {
        for secret in *samples {
            all.extend(CONTEXTS.iter().map(|c| c.replace("@@", secret)));
        }
    }
    all.extend(MARKED.iter().map(|m| unmark(m).0));
    all.extend(CLEAN.iter().map(|c| c.to_string()));
    all.push(format!("the literal {LITERAL} twice: x{LITERAL}y"));
    all
}

fn report(failures: &[String], of: usize) {
    assert!(
        failures.is_empty(),
        "{} of {of} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn masks_every_token_in_every_context() {
    let r = redactor();
    let (mut failures, mut count) = (Vec::new(), 0);
    for (kind, samples) in TOKENS {
        for secret in *samples {
            for context in CONTEXTS {
                count += 1;
                let input = context.replace("@@", secret);
                let want = context.replace("@@", &format!("[REDACTED:{kind}]"));
                let got = r.redact(&input);
                if got != want {
                    failures.push(format!(
                        "{kind}: {input:?}\n   got {got:?}\n  want {want:?}"
                    ));
                }
            }
        }
    }
    report(&failures, count);
    assert!(count >= 1500, "{count}");
}

#[test]
fn masks_secrets_given_away_by_where_they_are() {
    let r = redactor();
    let mut failures = Vec::new();
    for marked in MARKED {
        let (input, want) = unmark(marked);
        let got = without_kinds(&r.redact(&input));
        if got != want {
            failures.push(format!("{input:?}\n   got {got:?}\n  want {want:?}"));
        }
    }
    report(&failures, MARKED.len());
}

#[test]
fn leaves_near_misses_untouched() {
    let r = redactor();
    let failures: Vec<String> = CLEAN
        .iter()
        .filter_map(|text| {
            let got = r.redact(text);
            (got != *text).then(|| format!("{text:?}\n   got {got:?}"))
        })
        .collect();
    report(&failures, CLEAN.len());
}

fn chunk(text: &str, last: bool) -> TranscriptEntry {
    TranscriptEntry {
        stream_id: "m".into(),
        kind: EntryKind::AgentMessage,
        text: text.into(),
        last,
        replay: false,
    }
}

/// The text sent as one stream, cut at `cuts`.
fn streamed(r: &Redactor, text: &str, cuts: &[usize]) -> String {
    let mut streams = Streams::default();
    let mut out = String::new();
    let mut from = 0;
    for &cut in cuts {
        out.push_str(&streams.filter(r, chunk(&text[from..cut], false)).text);
        from = cut;
    }
    out.push_str(&streams.filter(r, chunk(&text[from..], true)).text);
    out
}

#[test]
fn streaming_in_two_pieces_masks_the_same() {
    let r = redactor();
    let (mut failures, mut count) = (Vec::new(), 0);
    for text in texts() {
        let whole = r.redact(&text);
        for cut in (0..=text.len()).filter(|&c| text.is_char_boundary(c)) {
            count += 1;
            let got = streamed(&r, &text, &[cut]);
            if got != whole {
                failures.push(format!(
                    "{:?} | {:?}\n   got {got:?}\n  want {whole:?}",
                    &text[..cut],
                    &text[cut..]
                ));
                break;
            }
        }
    }
    report(&failures, count);
}

#[test]
fn streaming_char_by_char_masks_the_same() {
    let r = redactor();
    let mut failures = Vec::new();
    let texts = texts();
    for text in &texts {
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).skip(1).collect();
        let got = streamed(&r, text, &cuts);
        let whole = r.redact(text);
        if got != whole {
            failures.push(format!("{text:?}\n   got {got:?}\n  want {whole:?}"));
        }
    }
    report(&failures, texts.len());
}

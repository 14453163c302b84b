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

use support::{streamed, unmark, without_kinds};

use redaction::detect::Redactor;

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

fn redactor() -> Redactor {
    Redactor::new(&[])
}

/// Whole, cut in two at every byte, and one character at a time: the marked
/// parts masked, the rest unchanged, and every stream the same as the whole.
fn check(table: &[&str]) {
    let r = redactor();
    let mut failures = Vec::new();
    for marked in table {
        let (input, want) = unmark(marked);
        let whole = r.redact(&input);
        if without_kinds(&whole) != want {
            failures.push(format!("{input:?}\n   got {whole:?}\n  want {want:?}"));
            continue;
        }
        for cut in (1..input.len()).filter(|&c| input.is_char_boundary(c)) {
            let got = streamed(&r, &input, &[cut]);
            if got != whole {
                failures.push(format!(
                    "{:?} | {:?}\n   got {got:?}\n  want {whole:?}",
                    &input[..cut],
                    &input[cut..]
                ));
                break;
            }
        }
        let cuts: Vec<usize> = input.char_indices().map(|(i, _)| i).skip(1).collect();
        let got = streamed(&r, &input, &cuts);
        if got != whole {
            failures.push(format!(
                "{input:?} char by char\n   got {got:?}\n  want {whole:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        table.len(),
        failures.join("\n")
    );
}

#[test]
fn references_names_public_values_and_documented_examples_stay() {
    check(LEFT_ALONE);
}

#[test]
fn secrets_beside_what_stays_are_still_masked() {
    check(STILL_MASKED);
}

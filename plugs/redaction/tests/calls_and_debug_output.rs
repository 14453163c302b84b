//! A secret handed to a call beside its name: a name and a value as a
//! call's first two strings, whatever is called (`System.setProperty`,
//! Spark's `conf.set`, Go's `Header.Set`, Kafka's `props.put`, Rust's
//! `env::set_var`, a tuple of a header's name and value). Beside them,
//! calls whose second string is no secret. Each text is also streamed, cut
//! at every byte and one character at a time, and must come out as whole.
//!
//! The values are random, shaped like the real formats; none is a live
//! credential.

mod support;

use support::check;

#[test]
fn a_value_named_by_the_string_before_it_is_masked() {
    check(&[
        "System.setProperty(\"javax.net.ssl.keyStorePassword\", \"«Wq8#kPz2!vLm»\");\n",
        "spark.conf.set(\"fs.azure.account.key.acct.dfs.core.windows.net\", \"«kQ7x2Lr9Vb3Nz8Pq1Wt5Yh6Jm4Fc0Ds2Ga7Ue9Ko3Ri1Hl5Xn8Cv6Bw4Ej2Mt0Qp9Sy==»\")\n",
        "\treq.Header.Set(\"X-Api-Key\", \"«a3f9c2e871b04d5e9f6a7c8b2d1e0f93»\")\n",
        "    std::env::set_var(\"DATABASE_PASSWORD\", \"«hunter2-Orbit-77»\");\n",
        "props.put(\"sasl.password\", \"«T9vQ2xLm8KzP4wRb»\");\n",
        "headers = [(\"Content-Type\", \"application/json\"), (\"X-Auth-Token\", \"«gAAAAABm3kQz8Lw2Rt5YmK9pN4vX»\")]\n",
        "      hadoopConf.set( 'fs.s3a.secret.key', '«q3Hn8vTz/L2xW9mR+k7Pb4YcF1sJd6GeQa0NuZiK5»' )\n",
    ]);
}

#[test]
fn a_second_string_that_is_no_secret_stays() {
    check(&[
        "label = t(\"forgot_password\", \"Forgot your password?\")\n",
        "key = os.getenv(\"API_KEY\", \"\")\n",
        "token = os.environ.get(\"GITHUB_TOKEN\", \"your-token-here\")\n",
        "System.setProperty(\"javax.net.ssl.trustStore\", \"/etc/ssl/certs/java/cacerts\");\n",
        "s = text.replace(\"password\", \"********\")\n",
        "conf.set(\"spark.hadoop.fs.s3a.access.key\", \"AKIAIOSFODNN7EXAMPLE\")\n",
        "headers.set(\"Authorization\", \"Bearer \" + token)\n",
        "secretRef := corev1.SecretKeySelector(\"db_password\", \"db-credentials\")\n",
        "log.Printf(\"token\", \"refreshed\")\n",
    ]);
}

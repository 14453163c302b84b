//! Private keys as the base64 of their DER, with no PEM lines around
//! them: a JSON field, `echo … | base64 -d` in a CI log's trace, a
//! keystore pasted into a variable. A key is told by its structure: a
//! SEQUENCE that opens with a version (PKCS#8, PKCS#1, SEC1, PKCS#12), or
//! a Java keystore's magic. Certificates and public keys, which open with a
//! SEQUENCE and no version, stay; so does a wrapped key's first line alone,
//! which holds only the start of its public modulus. Each text is also
//! streamed, cut at every byte and one character at a time, and must come
//! out as whole.
//!
//! The keys were made for this test (`openssl genpkey`, `openssl pkcs12`)
//! and protect nothing.

mod support;

use support::check;

const ED25519_PKCS8: &str = "MC4CAQAwBQYDK2VwBCIEIHHdu812t013Y5Egds0lYj9lf5Qh4Y5k9qo5CZm82bxa";
const EC_SEC1: &str = "MHcCAQEEICeTr/N1/bhJKaPAhs4b3w0WPCMPlc0EV/tJWHUshdnyoAoGCCqGSM49AwEHoUQDQgAEVyAR6Rftsc+z1T9VOcClB9aFroYXZaXd5k9ZLfcaB9vj8wDpBXWhRqZ2xLwt+aEB1xiXxxCBL6+xfE/moKNiuw==";
const RSA_PKCS1: &str = "MIICXQIBAAKBgQDouxKCS+0VurrUXhyPCUUqupVEqrlstP4VpHQqV+RKxqQwTbHOP3nfTGsDZSrgjlloENBcEOLN9zB9uJTsCxog4JfnFSGL5ozF6XiWLdnotevwGjFoWzAuoJneOvRltJF+R8cyxZUbKhtRmNNFgaoBhyP0awuzcCW+jMDKdhT6HQIDAQABAoGAL5pcHdSj6Obp4hhh5QvzXtsNPx9gkBCxTAH4VNTneDgLS2oI7XPkXL1HwkkGLSpQtU2DIOG/Unu2KnD/3QwkSqNSz1+3SbwlpVOWHCFq8Evs2oCULBEvSeN0kCkJrho5vChEBp5LSB/d5WEX4nizQLXYY8qMd2QfVRUAmXjJnCECQQD/AXOyQsLZROC1leu+5PDCFfTSmEEQweUdQkJN40q35LxxvChz6A/9k4KVCSaMTcR6adsw0wKLk74WrTBeqfw1AkEA6aNiqn3lWIlGjnmUFFax9pokMnHR16YgXPeOhv6Y75PAXZe2r4Wx8sK4IunGB64QEtYQYvOAn2LKC+bAlZezSQJBAJRRXd+i4P3KCADV0CZZtobMincqwz1h6UbZUQNIXh8TVV+5lrXDlflhIKRajCcy3EJu62Q8dtCEAB3kYavNprkCQQCCCGAymY0awJRXWY0z4Kh9on6A4N40ko4yj8lwkqSVunr23Chd+h/3B66qJ8gCoDrr8N3/5JxymO3wv8XxvBOZAkADzmkdQZjJoaExuyP1DH2rUjamd8gQNRF8cFzc1pbS+r5wkRnt0PwBDHVSDJOYVgtgGkKjGTYfSlALi3/w6k1L";
const PKCS12: &str = "MIID/AIBAzCCA7IGCSqGSIb3DQEHAaCCA6MEggOfMIIDmzCCAlIGCSqGSIb3DQEHBqCCAkMwggI/AgEAMIICOAYJKoZIhvcNAQcBMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAh32bfn3v1X8wICCAAwDAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEENWXY9D+8l0VaoysfxCS4TiAggHQJG3oG0mlU0x14BfK1vLuC3sb3m91MgQD/PUjUXPYmy1epMoeGcPcj9Ti3KVSbQZKkR6d1kGyj8/0dx/YdQxQVjW9SzlPcEd8rmDNjBq0CsGYHCa5uaki1RxiHZhhep5NM0cPy/cqNTahFz37PINPKG+jErMo7h5aNMuArwIuS+u1z0sl5K+pivtW/uIvwEPtuM2bgysjte0OtbOA7F288iZPCZzYfQrud/YJBqUehxgpXXSfo3NCnTZbx3A6pN6Lct32Jm6Ove2mHCCjgkMH3BAajciOUNhJz99tsjAPIY4OysN+UH3DZVArckqAovG+1+/ahGT7y+7EsOgjiKLaF0X1imPIx3q/9H+F7e0Yt0SI9GLMhIufPyvmjlO7+rzouESRmqLqDbGktk7jslKD0SPbOnDWw8GswAk5DR7Fs3iDiugzpSYy1qpgNtOMYN5Vx4KgtwqJob4IxGLwNhc8imdqYSMsvyZmBW56/w/9LKjLQgQtzGCynj9xxeNI94/Ad0AEfEX+XWTCF4EvPiEZo/e21x67mZW5zok7sQxv9onAdE5nTx1KxzZdX5uX9HWyFgsPXc7Ke6MDQqmbBw6cfBKAyvgNCw3EUHBjZetNP/kwggFBBgkqhkiG9w0BBwGgggEyBIIBLjCCASowggEmBgsqhkiG9w0BDAoBAqCB7zCB7DBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQIfzLrCiQS9nYCAggAMAwGCCqGSIb3DQIJBQAwHQYJYIZIAWUDBAEqBBBA2s58rRCR7eouYbos/k9zBIGQvFimIiiraMOTKudEFodKsfAEHcBz9GYZxa3YElYsCKflnyen5EybpjRj5HP2UMOlhwp/1/xcTcpjZEEgePUSg4e2ISuBQbFZ0JlGDVs2cPCsEqqDTc23ZT16aNaYFJQ8tAWHUprjmghZ7AGSujLQ9i5exa9cSIbe/EZnP5+up4M9K2CxK7CcuHe6BoJsPdfPMSUwIwYJKoZIhvcNAQkVMRYEFPW6f3nS+VrD5hXysFBM7vdUSm7bMEEwMTANBglghkgBZQMEAgEFAAQgA2TsBBptCd9TQTxJpSmhcPF0ssFXA2AVOike4rp5mvAECJHPqhdDfJU5AgIIAA==";
const JKS: &str = "/u3+7QAAAAIAAAABpU3KGCUwux1tEyze1iN7LtkeP3IfyxlxF0SU1kk8nVw0YL4xIB5p/tqg7ui5mX9cfCmZ/a/lkyU81lSvTfrXFCegrrP+6SMvivIhH57kkcWxC+y1Vjv8Hm+TQn7LyP4pVeXNjkbcjtS3wnZNKlpNdncG+F2GkAJK1r2jQBvpyMvMyTX2zR9hImrhUziuGjQATTO6DSRqwEyBsbryPjv57vX3nytJNK+H9VILablLDZguhbtVtnKocmN6zXRm/LYODo/xhGOw5LK6KXA0dPBkrGj3APWwKz3GZvRb3qosyu3NK1FXQQ5N7krys09DCgc0R95jbA6AbJV7poTWQx+16tdCTQnhXQJMWEjyPR+m9zYdf2GNFTLnDiDipmaN5/R+hGflRtU+yOKhJXvbJWybPk+7SYFG73Awy/lTclLczq3XZLajL7sJrerhCcSplyA5dTUrh4sUXIpC2ITPTP2nLY4dXdkliQgthSpxIoc+6AWt1YlCFno4UoYZXGefnGmU5FuKsQmAEgcJYfN95Dbd/Q==";
const ED25519_PUBLIC: &str = "MCowBQYDK2VwAyEAsj+9//I3BR3ZInTYC2VOEZSH6ZwFZdqkyRN5c1/Xvw4=";
const CERTIFICATE: &str = "MIIBbjCCAROgAwIBAgIUDX+oLwNqJYo92ct5fJ+oPdBtKTAwCgYIKoZIzj0EAwIwDDEKMAgGA1UEAwwBdDAeFw0yNjEyMDcxOTExNDFaFw0yNjEyMDgxOTExNDFaMAwxCjAIBgNVBAMMAXQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATpKhvgPYvIb88CGvmaa/OvllsJ83xS0nOulUOV1ebkDXscGv/6n1reskJtXdCiePJNErvupj28wBG4jzlHnmlxo1MwUTAdBgNVHQ4EFgQUEAF9HDc7aTe3jmjSqB74A3B08u4wHwYDVR0jBBgwFoAUEAF9HDc7aTe3jmjSqB74A3B08u4wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEAo9Kr3FJRQybZ2NdG4y+xV+aUeGkH+UyQxCBZgxpH2mYCIQDoYQxhDiEZEXKgRmhPbithA6BG5H8QabHNHNTzOBBlZA==";

#[test]
fn a_private_key_in_der_is_masked_wherever_it_is() {
    let texts = [
        format!(
            "2025-04-08T15:45:37.31Z + echo «{ED25519_PKCS8}» | base64 -d > /tmp/signing.key\n"
        ),
        format!("{{\"name\": \"webhook-signer\", \"material\": \"«{EC_SEC1}»\"}}\n"),
        format!("+ echo «{RSA_PKCS1}»\n+ base64 -d\n"),
        format!("+ echo «{PKCS12}» | base64 --decode > cert.p12\n"),
        format!("  ⎿  + echo «{JKS}»\n     + base64 -d\n"),
    ];
    check(&texts.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn public_keys_certificates_and_a_first_line_stay() {
    let first_line = &RSA_PKCS1[..64];
    let texts = [
        format!("signify_pub: {ED25519_PUBLIC}\n"),
        format!("\"x5c\": [\"{CERTIFICATE}\"]\n"),
        format!("The key's first line is {first_line} and the rest is elided.\n"),
    ];
    check(&texts.iter().map(String::as_str).collect::<Vec<_>>());
}

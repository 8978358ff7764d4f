use kubegen::testing::TestEnv;

#[kubegen::test(setup = "seed")]
async fn creates(env: TestEnv) {
    let _ = env;
}

fn main() {}

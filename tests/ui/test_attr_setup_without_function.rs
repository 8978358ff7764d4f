use kubegen::testing::TestEnv;

#[kubegen::test(setup)]
async fn creates(env: TestEnv) {
    let _ = env;
}

fn main() {}

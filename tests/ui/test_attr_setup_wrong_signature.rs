use kubegen::testing::TestEnv;

fn seed(_: &kubegen::testing::backend::TestSetup) -> bool {
    true
}

#[kubegen::test(setup = seed)]
async fn creates(env: TestEnv) {
    let _ = env;
}

fn main() {}

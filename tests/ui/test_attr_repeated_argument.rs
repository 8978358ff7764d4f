use kubegen::testing::TestEnv;

fn seed(_: &mut kubegen::testing::backend::TestSetup) {}

#[kubegen::test(in_memory, setup = seed, in_memory, setup = seed)]
async fn creates(env: TestEnv) {
    let _ = env;
}

fn main() {}

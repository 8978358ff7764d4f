// `controllers` is a flag: it takes no value.
use kubegen::testing::TestEnv;

#[kubegen::test(controllers = true)]
async fn with_controllers(env: TestEnv) {
    let _ = env;
}

fn main() {}
